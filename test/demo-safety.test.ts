// The demo's safety and determinism: the same report on every run, the short default output
// (its figures re-derived from the tables), and a database or arguments it must refuse
// before writing anything. The demo runs through the CLI's dispatcher (in process).
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { parseInstant } from '../src/instant.js';
import { describeBothDialects } from './helpers/test-db.js';
import { bars, captureDemo, contiguous, decimals, demoTarget, linesBetween, metadataOf, num, printed, type DemoTarget } from './helpers/demo-run.js';
import { expectedFigures } from './helpers/demo-expected-figures.js';

describeBothDialects('demo safety and determinism', (dialect) => {
  const targets: DemoTarget[] = [];
  afterEach(async () => {
    for (const t of targets.splice(0)) await t.close();
  });
  const open = async () => {
    const t = await demoTarget(dialect);
    targets.push(t);
    return t;
  };
  /** The output without what legitimately varies: step timings, location, elapsed time. */
  const stable = (text: string) =>
    text
      .split('\n')
      .filter((l) => !/^(subagent-context demo ·|done in|\s+subagent-context report: |\s+(npx|sqlite3|psql) )/.test(l))
      .map((l) => l.replace(/\s+[\d.]+ ms\b/, ''))
      .join('\n');

  it('prints the same report on every run', async () => {
    const first = await open();
    const a = await captureDemo(first.args);
    // SQLite: the same file again (the demo replaces its own file); PostgreSQL: a second empty database.
    const b = await captureDemo(await byDialect(dialect, { sqlite: async () => first.args, postgres: async () => (await open()).args })());
    expect(stable(b.text)).toEqual(stable(a.text));
    expect(a.text).toContain('What it found');
  });

  it('prints what docs/demo-and-benchmarks.md shows it printing (a review found 7 steps and 137 notifications there, 8 and 144 here)', async () => {
    const docs = readFileSync('docs/demo-and-benchmarks.md', 'utf8');
    const shown = /What it prints by default[^\n]*\n\n```text\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(shown).toBeDefined();
    const run = await captureDemo((await open()).args);
    const steps = (text: string) => /(\d+) migration steps/.exec(text)?.[1];
    const anySteps = (text: string) =>
      stable(text)
        .replace(/\d+ migration steps/, 'N migration steps')
        .trimEnd();
    expect(anySteps(run.text)).toBe(anySteps(shown!));
    // The sample is SQLite's; the page gives PostgreSQL's count of steps beside it.
    expect(steps(run.text)).toBe(
      byDialect(dialect, { sqlite: steps(shown!), postgres: /On PostgreSQL the upgrade takes (\d+) migration steps/.exec(docs)?.[1] }),
    );
  });

  it('by default prints the finding first, in about 30 lines, with figures the tables hold', async () => {
    const t = await open();
    const run = await captureDemo(t.args);
    expect([run.code, run.errors]).toEqual([EXIT.ok, '']);
    const e = await expectedFigures(t);
    const lines = run.text.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(32);
    // The headline is the fourth line: no step, key or caveat before it.
    expect(lines[2]).toBe('What it found');
    const headline = printed(
      lines[3],
      /^ {3}A card's work ran in ([\d.]+) contexts, not the ([\d.]+) session per card that task_sessions shows: ([\d,]+) subagents across ([\d,]+) cards \(([\d,]+) of them fanned out\)\.$/,
    );
    expect(headline.slice(1)).toEqual([
      decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2),
      decimals(e.cards.sessions / e.cards.tasks, 2),
      e.cards.contexts.toLocaleString('en-US'),
      String(e.cards.tasks),
      String(e.cards.tasksWithSubagents),
    ]);
    const all = [...e.fanOut.known, ...e.fanOut.unknown];
    const fan = printed(
      run.text,
      /([\d,]+) turns spawned subagents; ([\d,]+) of them spawned two or more, up to ([\d,]+) at once\. ([\d,]+) turns with a complete count, ([\d,]+) earlier turns/,
    );
    expect(fan.slice(1).map(num)).toEqual([
      all.reduce((n, [, turns]) => n + turns, 0),
      all.filter(([k]) => k >= 2).reduce((n, [, turns]) => n + turns, 0),
      Math.max(...all.map(([k]) => k)),
      [...e.fanOut.known.values()].reduce((a, b) => a + b, 0),
      e.fanOut.unknownTurns,
    ]);
    const tk = e.tokens;
    const tokens = printed(run.text, /([\d,]+) tokens over ([\d,]+) subagents that reported usage, ([\d,]+) each on average; ([\d,]+) more reported nothing/);
    expect(tokens.slice(1).map(num)).toEqual([tk.total, tk.measured, Math.round(tk.total / tk.measured), tk.unmeasured]);
    // Then the charts: the cards ratio and the fan-out recovered from history.
    const ratios = Object.fromEntries(bars(linesBetween(run.text, /^What it found$/, /subagents per turn, turns from the history/)));
    expect(ratios).toEqual({
      'sessions per card': decimals(e.cards.sessions / e.cards.tasks, 2),
      'contexts per card': `${decimals((e.cards.sessions + e.cards.contexts) / e.cards.tasks, 2)}  (sessions + subagent contexts)`,
    });
    const histogram = bars(linesBetween(run.text, /subagents per turn, turns from the history/, /^What ran$/)).map(([k, rest]) => [
      Number(k),
      num(printed(rest, /^([\d,]+) turns?$/)[1]),
    ]);
    expect(histogram).toEqual(contiguous(e.fanOut.unknown));
    expect(num(printed(run.text, /([\d,]+) rows backfilled from history/)[1])).toBe(e.provenance.backfill);
    expect(printed(run.text, /Health check: (\w+), shortfall (\d+)\./).slice(1)).toEqual(['healthy', '0']);
    // The live turns came off the wire: one subagent per launch message the host wrote after capture began.
    const wire = printed(
      run.text,
      /([\d,]+) ACP notifications recorded from real Claude Code and OpenCode runs went through createAcpRecorder: ([\d,]+) subagents?,\n\s+([\d,]+) frames: ([\d,]+) persisted, ([\d,]+) skipped without a task id, ([\d,]+) failed\./,
    )
      .slice(1)
      .map(num);
    const since = parseInstant(e.keys.capture_since!)!;
    const launches = (
      await t.query<{ metadata: string | null; at: string }>(`SELECT metadata, ${t.timeText('created_at')} AS at FROM task_session_messages`)
    ).filter((m) => (metadataOf(m.metadata).normalized as { kind?: unknown } | undefined)?.kind === 'subagent_task' && parseInstant(m.at)! >= since);
    expect(wire[1]).toBe(launches.length);
    expect(wire[2]).toBe(wire[3] + wire[4] + wire[5]);
    expect(wire[0]).toBeGreaterThan(wire[2]); // most notifications are not a subagent's (chunks, usage, the subagents' own tools)
    expect(wire[3]).toBeGreaterThan(0);
    expect(run.text).toMatch(/^ {3}8 notes on how far these figures may be read: run with --verbose/m);
    // The hint for the full walk-through keeps the database option: on SQLite the same file
    // (the demo replaces its own), on PostgreSQL the option, for another empty database.
    const hint = printed(run.text, /^ {3}npx subagent-context demo (.*) --verbose {3}# the full walk-through/m)[1];
    expect(hint).toBe(byDialect(dialect, { sqlite: `--sqlite ${t.args[1]}`, postgres: '--postgres EMPTY_DATABASE_URL' }));
    if (dialect === 'sqlite') {
      const verbose = await captureDemo([...hint.split(' '), '--verbose']);
      expect([verbose.code, verbose.errors]).toEqual([EXIT.ok, '']);
      expect(verbose.text).toMatch(/^1\. runMigrations\(\)/m);
      expect(verbose.text).toContain(`SQLite file ${t.args[1]}`);
    }
    expect(run.text).not.toMatch(/runMigrations|Read these first/);
  });

  it('refuses a database it did not make, and leaves it untouched', async () => {
    const t = await open();
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const db = new Database(t.args[1]);
      db.exec(`CREATE TABLE task_sessions (id TEXT PRIMARY KEY, task_id TEXT NOT NULL); INSERT INTO task_sessions VALUES ('real', 'card')`);
      db.close();
    } else {
      await t.query(`CREATE TABLE task_sessions (id TEXT PRIMARY KEY, task_id TEXT NOT NULL); INSERT INTO task_sessions VALUES ('real', 'card')`);
    }
    const result = await captureDemo(t.args);
    // Through the CLI's error path: one line on stderr, nothing on stdout, the usage exit code.
    expect(result.code).toBe(EXIT.usage);
    expect(result.text).toBe('');
    expect(result.errors).toMatch(/^subagent-context: refusing to run: .*task_sessions.*\n$/);
    expect(result.errors.split('\n')).toHaveLength(2);
    expect(await t.query(`SELECT id FROM task_sessions`)).toEqual([{ id: 'real' }]);
  });

  it("checks its arguments with the CLI's own checks, before touching any database", async () => {
    const t = await open();
    const scratch = mkdtempSync(join(tmpdir(), 'subagent-context-demo-args-'));
    try {
      const otherFile = join(scratch, 'other.db');
      const other = byDialect(dialect, { sqlite: ['--postgres', 'postgres://127.0.0.1:1/none'], postgres: ['--sqlite', otherFile] });
      const both = await captureDemo([...t.args, ...other]);
      expect(both.code).toBe(EXIT.usage);
      expect(both.errors).toMatch(/^subagent-context: give either --sqlite or --postgres, not both\n$/);
      const badUrl = await captureDemo(['--postgres', 'mysql://x/y']);
      expect(badUrl.code).toBe(EXIT.usage);
      expect(badUrl.errors).toMatch(/--postgres needs a postgres:\/\/ or postgresql:\/\/ URL/);
      expect([both.text, badUrl.text]).toEqual(['', '']);
      // Nothing was written: no demo table in the target, no file created.
      expect(existsSync(otherFile)).toBe(false);
      if (byDialect(dialect, { sqlite: false, postgres: true }))
        expect(await t.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
      else expect(existsSync(t.args[1])).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
