// `subagent-context report`, the real binary against a real SQLite file and PostgreSQL
// database: the human view (caveats first, Unicode bar charts), --json (identical to
// store.report()), --html (one self-contained page), the window and --task options, and the
// exit codes of bad arguments and an unmigrated store.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SubagentContextReport } from '../src/index.js';
import { visible } from '../src/render/display-text.js';
import { plainWords, SPEC_CODE } from '../src/render/notes.js';
import { assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

beforeAll(assertBuilt);

function printed(text: string, pattern: RegExp): RegExpMatchArray {
  const m = text.match(pattern);
  if (!m) throw new Error(`the report did not print ${pattern}:\n${text}`);
  return m;
}

describeBothDialects('cli: report', (dialect) => {
  let db: TestDb;
  let dir: string;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-report-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const report = (...extra: string[]) => runCliBinary(['report', ...databaseArgs(db), ...extra]);

  it('human view: the finding first, then a bar per fan-out bucket and token bucket, then the caveats as numbered notes', async () => {
    const run = await report();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const expected = await db.store().report();
    const out = run.stdout;
    expect(out).toMatch(/^subagent-context report: /);
    expect(out.indexOf('What it found')).toBeGreaterThan(0);
    expect(out.indexOf('What it found')).toBeLessThan(out.indexOf('Fan-out: subagents per turn'));
    expect(out.indexOf('Executions (')).toBeLessThan(out.indexOf('Notes: how to read these figures'));
    expect(expected.caveats.length).toBeGreaterThan(2);
    expected.caveats.forEach((c, i) => {
      // The sentence in plain words: the same words, the spec's criterion codes taken out.
      const line = printed(out, new RegExp(`^  ${i + 1}\\. (.*)$`, 'm'))[1];
      expect(line).toBe(plainWords(c));
      expect(line).not.toMatch(SPEC_CODE);
    });
    expect(expected.caveats.some((c) => SPEC_CODE.test(c))).toBe(true); // the control: the report's own caveats cite them
    expect(out).not.toMatch(SPEC_CODE);
    // One drawn bar per known bucket: "k │███ n turns".
    for (const b of expected.fan_out.known) {
      expect(out).toMatch(new RegExp(`^\\s+${b.subagents} │[█▏▎▍▌▋▊▉]+ ${b.turns} turns?$`, 'm'));
    }
    for (const b of expected.tokens.distribution.filter((x) => x.subagents > 0)) {
      expect(out).toMatch(new RegExp(`│[█▏▎▍▌▋▊▉]+ ${b.subagents} subagents?$`, 'm'));
    }
    expect(out).toMatch(/^\s+contexts per card │█+/m);
    expect(out).toMatch(new RegExp(`distinct executions: ${expected.executions.distinct}$`, 'm'));
  });

  it('--json prints exactly store.report(); --since/--until/--task reach it', async () => {
    const all = await report('--json');
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual(await db.store().report());
    const args = ['--since', '2026-03-01T12:00:00Z', '--until', '2026-03-01T20:00:00+02:00', '--task', 'T1', '--task', 'T2'];
    const scoped = await report(...args, '--json');
    expect(scoped.code).toBe(0);
    const expected = await db.store().report({ since: '2026-03-01T12:00:00Z', until: '2026-03-01T20:00:00+02:00', taskIds: ['T1', 'T2'] });
    expect(JSON.parse(scoped.stdout)).toEqual(expected);
    expect(expected.provenance.rows).toBeGreaterThan(0);
    expect(expected.provenance.rows).toBeLessThan((await db.store().report()).provenance.rows);
  });

  it('--html writes one self-contained page: inline SVG, no script, nothing fetched', async () => {
    const file = join(dir, `report-${dialect}.html`);
    const run = await report('--html', file);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`wrote ${file}`);
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('Content-Security-Policy" content="default-src \'none\'');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
    const expected = await db.store().report();
    const chart = (id: string) => html.slice(html.indexOf(`data-chart="${id}"`), html.indexOf('</figure>', html.indexOf(`data-chart="${id}"`)));
    expect(chart('fan-out-known').match(/<rect class="bar"/g)).toHaveLength(expected.fan_out.known.length);
    expect(chart('fan-out-unknown').match(/<rect class="bar"/g)).toHaveLength(expected.fan_out.unknown.length);
    expect(chart('token-distribution').match(/<rect class="bar"/g)).toHaveLength(expected.tokens.distribution.filter((b) => b.subagents > 0).length);
    // The caveats as numbered notes after the charts, each sentence in plain words.
    const notes = html.slice(html.indexOf('<section class="notes" id="caveats">'), html.indexOf('</ol>', html.indexOf('id="caveats"')));
    expect(html.indexOf('id="caveats"')).toBeGreaterThan(html.lastIndexOf('<figure class="chart"'));
    const items = [...notes.matchAll(/<li>(.*?)<\/li>/gs)].map((m) =>
      m[1]
        .replace(/<[^>]+>/g, '')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    );
    expect(items).toHaveLength(expected.caveats.length);
    expected.caveats.forEach((c, i) => expect(items[i]).toBe(visible(plainWords(c))));
    expect(html).not.toMatch(SPEC_CODE);
  });

  it('--since/--until take a plain date as midnight UTC, and --help says so', async () => {
    const day = await report('--since', '2026-03-01', '--until', '2026-03-02', '--json');
    expect(day.code, day.stderr).toBe(0);
    const parsed = JSON.parse(day.stdout) as SubagentContextReport;
    expect(parsed.window).toEqual({ since: '2026-03-01T00:00:00.000000000Z', until: '2026-03-02T00:00:00.000000000Z' });
    expect(parsed).toEqual(await db.store().report({ since: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' }));
    expect(parsed.provenance.rows).toBeGreaterThan(0);
    // The day before holds none of the fixture's rows: the date bounds the window, it is not ignored.
    const before = JSON.parse((await report('--until', '2026-03-01', '--json')).stdout) as typeof parsed;
    expect(before.provenance.rows).toBe(0);
    const notADay = await report('--since', '2026-02-30');
    expect(notADay.code).toBe(2);
    expect(oneLineError(notADay)).toBe('subagent-context: --since "2026-02-30" is not a calendar date (YYYY-MM-DD)');
    const help = await runCliBinary(['report', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('plain dates (2026-08-01 means midnight UTC)');
  });

  it('bad arguments exit 2 with one line; an unmigrated store exits 7', async () => {
    const since = await report('--since', 'yesterday');
    expect(since.code).toBe(2);
    expect(oneLineError(since)).toMatch(/^subagent-context: --since "yesterday" is not an RFC3339 instant/);
    // Only the option's own name becomes the flag, never the user's text echoed in quotes.
    expect(oneLineError(await report('--since', 'x until (y'))).toMatch(/^subagent-context: --since "x until \(y" is not an RFC3339 instant/);
    const order = await report('--since', '2026-03-02T00:00:00Z', '--until', '2026-03-01T00:00:00Z');
    expect(order.code).toBe(2);
    expect(oneLineError(order)).toMatch(/^subagent-context: --since \(.*\) must be before --until \(/);
    const task = await report('--task', '');
    expect(task.code).toBe(2);
    expect(oneLineError(task)).toBe('subagent-context: --task needs a value');
    const html = await report('--html', '');
    expect(html.code).toBe(2);
    const unknown = await report('--sinse', 'x');
    expect(unknown.code).toBe(2);

    const bare = await openTestDb(dialect); // host tables only
    try {
      const run = await runCliBinary(['report', ...databaseArgs(bare)]);
      expect(run.code).toBe(7);
      expect(oneLineError(run)).toMatch(/missing tables kandev_meta, task_session_subagents/);
    } finally {
      await bare.close();
    }
  });
});
