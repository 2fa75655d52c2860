// The demo cannot silently lie: it runs on a real database per dialect, then every figure it
// printed is re-derived here from the tables with the test's own SQL (or, for the health
// comparison, from the raw rows in JavaScript) and compared. The seeded history is also
// checked against the spec's "Sampled input shapes" through what the backfill recovered.
// The demo runs as `subagent-context demo` through the CLI's dispatcher (in process), so its
// exit codes, output stream and error stream are the CLI's.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { createDatabase } from '../scripts/lib/postgres-database.js';
import { runCli } from '../src/cli/main.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { parseInstant } from '../src/instant.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';

interface DemoTarget {
  /** The demo's database option: ['--sqlite', FILE] or ['--postgres', URL]. */
  args: string[];
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** SQL text of a timestamp column, comparable with parseInstant on both dialects. */
  timeText(column: string): string;
  close(): Promise<void>;
}

let counter = 0;

async function demoTarget(dialect: Dialect): Promise<DemoTarget> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-demo-test-'));
    const file = join(dir, 'demo.db');
    let db: Database.Database | undefined;
    const open = () => (db ??= new Database(file));
    return {
      args: ['--sqlite', file],
      query: async <T>(sql: string) => {
        const stmt = open().prepare(sql);
        return (stmt.reader ? stmt.all() : (stmt.run(), [])) as T[];
      },
      timeText: (column) => column,
      close: async () => {
        db?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createDatabase(inject('pgUrl'), `demo_${process.pid}_${Date.now().toString(36)}_${counter++}`);
  const pool = database.pool({ max: 2 });
  return {
    args: ['--postgres', database.url],
    query: async <T>(sql: string) => (await pool.query(sql)).rows as T[],
    timeText: (column) => `${column}::text`,
    close: () => database.drop(),
  };
}

/** `subagent-context demo ARGS`: the exit code, stdout (the report) and stderr (errors). */
async function captureDemo(args: readonly string[]): Promise<{ code: number; text: string; errors: string }> {
  let text = '';
  let errors = '';
  const code = await runCli(['demo', ...args], { out: (t) => void (text += t), err: (t) => void (errors += t) });
  return { code, text, errors };
}

const num = (s: string) => Number(s.replace(/,/g, ''));

/** The first match of `pattern` in the demo's output, or a failure that shows the output. */
function printed(text: string, pattern: RegExp): RegExpMatchArray {
  const m = text.match(pattern);
  if (!m) throw new Error(`the demo did not print ${pattern}:\n${text}`);
  return m;
}

/** metadata as every statement of the package reads it: NULL, '', 'null', invalid → {}. */
function metadataOf(text: unknown): Record<string, any> {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

const toCounts = (rows: { k: unknown; n: unknown }[]) => Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));

describeBothDialects('demo', (dialect) => {
  let target: DemoTarget;
  let run: { code: number; text: string; errors: string };

  // One demo run per dialect; every test below only reads what it printed and wrote.
  beforeAll(async () => {
    target = await demoTarget(dialect);
    run = await captureDemo(target.args);
  });
  afterAll(async () => target.close());

  it('succeeds: the upgrade applied and the health check reads healthy', () => {
    expect(run.text).toMatch(/ok: true/);
    expect(printed(run.text, /state (\w+) · verdict (\w+)/).slice(1)).toEqual(['activated', 'healthy']);
    expect(run.errors).toBe('');
    expect(run.code).toBe(EXIT.ok);
  });

  it("backfills the spec's sampled population (Sampled input shapes)", async () => {
    const [totals] = await target.query<{ n: unknown; sessions: unknown; turns: unknown; nested: unknown; untyped: unknown }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT task_session_id) AS sessions,
              COUNT(DISTINCT task_session_id || '/' || turn_id) AS turns,
              COUNT(parent_tool_call_id) AS nested, SUM(CASE WHEN subagent_type IS NULL THEN 1 ELSE 0 END) AS untyped
         FROM task_session_subagents WHERE source = 'backfill'`,
    );
    expect([totals.n, totals.sessions, totals.turns, totals.nested, totals.untyped].map(Number)).toEqual([253, 38, 127, 1, 3]);

    const presence = await target.query<Record<string, unknown>>(
      `SELECT COALESCE(agent_status, '(absent)') AS status, COUNT(*) AS n, COUNT(agent_id) AS agent_id,
              COUNT(child_session_id) AS child_session_id, COUNT(model) AS model, COUNT(total_tokens) AS total_tokens,
              COUNT(tool_use_count) AS tool_use_count, COUNT(duration_ms) AS duration_ms
         FROM task_session_subagents WHERE source = 'backfill' GROUP BY COALESCE(agent_status, '(absent)') ORDER BY 1`,
    );
    const table = Object.fromEntries(presence.map(({ status, ...counts }) => [status, Object.values(counts).map(Number)]));
    // n, agent_id, child_session_id, model, total_tokens, tool_use_count, duration_ms
    expect(table).toEqual({
      '(absent)': [1, 0, 0, 0, 0, 0, 0],
      async_launched: [190, 190, 0, 190, 0, 0, 0],
      completed: [57, 57, 0, 49, 57, 57, 57],
      started: [5, 0, 5, 0, 0, 0, 0],
    });

    const fanOut = await target.query<{ k: unknown; n: unknown }>(
      `SELECT per_turn.k AS k, COUNT(*) AS n FROM (
         SELECT COUNT(*) AS k FROM task_session_subagents WHERE source = 'backfill' GROUP BY task_session_id, turn_id
       ) AS per_turn GROUP BY per_turn.k`,
    );
    expect(toCounts(fanOut)).toEqual({ 1: 65, 2: 12, 3: 42, 4: 5, 5: 2, 8: 1 });
  });

  it('prints a fan-out histogram equal to a query over the table', async () => {
    const bars = [...run.text.matchAll(/^\s+(\d+) subagents?\s+│█+ ([\d,]+) turns? \(([\d,]+) backfilled\)$/gm)].map((m) => [Number(m[1]), num(m[2]), num(m[3])]);
    const rows = await target.query<{ k: unknown; n: unknown; b: unknown }>(
      `SELECT per_turn.k AS k, COUNT(*) AS n, SUM(per_turn.b) AS b FROM (
         SELECT COUNT(*) AS k, MIN(CASE WHEN source = 'backfill' THEN 1 ELSE 0 END) AS b
           FROM task_session_subagents WHERE turn_id IS NOT NULL GROUP BY task_session_id, turn_id
       ) AS per_turn GROUP BY per_turn.k ORDER BY per_turn.k`,
    );
    expect(bars).toEqual(rows.map((r) => [Number(r.k), Number(r.n), Number(r.b)]));
    // The backfilled column is the spec's sampled distribution.
    expect(Object.fromEntries(bars.map(([k, , b]) => [k, b]))).toEqual({ 1: 65, 2: 12, 3: 42, 4: 5, 5: 2, 8: 1 });
  });

  it('prints the provenance split, tokens and per-card figures the tables hold', async () => {
    const split = [...run.text.matchAll(/^\s+(backfill|live)\s+([\d,]+) rows · ([\d,]+) with a real execution id · ([\d,]+) settled · ([\d,]+) measured$/gm)];
    const bySource = await target.query<Record<string, unknown>>(
      `SELECT source, COUNT(*) AS n, SUM(CASE WHEN agent_execution_id <> 'unknown' THEN 1 ELSE 0 END) AS real_ids,
              COUNT(settled_at) AS settled, COUNT(total_tokens) AS measured
         FROM task_session_subagents GROUP BY source ORDER BY source`,
    );
    expect(split.map((m) => [m[1], ...m.slice(2).map(num)])).toEqual(bySource.map((r) => [r.source, Number(r.n), Number(r.real_ids), Number(r.settled), Number(r.measured)]));
    expect(split.map((m) => m[1])).toEqual(['backfill', 'live']);

    const [tokens] = await target.query<{ measured: unknown; unmeasured: unknown; total: unknown }>(
      `SELECT COUNT(total_tokens) AS measured, SUM(CASE WHEN total_tokens IS NULL THEN 1 ELSE 0 END) AS unmeasured, SUM(total_tokens) AS total
         FROM task_session_subagents WHERE settled_at IS NOT NULL`,
    );
    const measured = printed(run.text, /measured\s+([\d,]+) rows? · mean ([\d,]+) ·/);
    expect(num(measured[1])).toBe(Number(tokens.measured));
    expect(num(measured[2])).toBe(Math.round(Number(tokens.total) / Number(tokens.measured)));
    expect(num(printed(run.text, /excluded\s+([\d,]+) rows? reported no usage/)[1])).toBe(Number(tokens.unmeasured));
    expect(Number(tokens.unmeasured)).toBeGreaterThan(190); // the async_launched dispatches, never 0-filled

    const cards = await target.query<{ contexts: unknown }>(
      `SELECT COUNT(s.id) AS contexts FROM task_sessions t LEFT JOIN task_session_subagents s ON s.task_session_id = t.id GROUP BY t.task_id`,
    );
    const contexts = cards.map((c) => Number(c.contexts));
    const perCard = printed(run.text, /subagent contexts per card\s+mean ([\d.]+) · median [\d.]+ · max (\d+) · (\d+) of (\d+) cards fanned out/);
    expect(Number(perCard[1])).toBeCloseTo(contexts.reduce((a, b) => a + b, 0) / contexts.length, 2);
    expect([Number(perCard[2]), Number(perCard[3]), Number(perCard[4])]).toEqual([Math.max(...contexts), contexts.filter((n) => n > 0).length, contexts.length]);
    expect(printed(run.text, /sessions per card\s+mean ([\d.]+) · min (\d+) · max (\d+)/).slice(1)).toEqual(['1.00', '1', '1']);
  });

  it('prints the activation keys as stored and a health comparison the raw rows confirm', async () => {
    const keys = await target.query<{ key: string; value: string }>(`SELECT key, value FROM kandev_meta WHERE key LIKE 'subagent_context_%' ORDER BY key`);
    expect(keys.map((k) => k.key)).toEqual(['subagent_context_backfill_through', 'subagent_context_capture_since', 'subagent_context_execution_since']);
    for (const k of keys) expect(run.text).toMatch(new RegExp(`^\\s+${k.key} +${k.value.replace(/[.+]/g, '\\$&')}$`, 'm'));

    const since = parseInstant(keys.find((k) => k.key === 'subagent_context_capture_since')!.value)!;
    const messages = await target.query<{ task_session_id: string; task_id: string | null; metadata: string | null; at: string }>(
      `SELECT task_session_id, task_id, metadata, ${target.timeText('created_at')} AS at FROM task_session_messages`,
    );
    const rows = await target.query<{ task_session_id: string; tool_call_id: string; at: string }>(
      `SELECT task_session_id, tool_call_id, ${target.timeText('observed_at')} AS at FROM task_session_subagents`,
    );
    const expected = new Set<string>();
    const accounted = new Set<string>();
    for (const m of messages) {
      const meta = metadataOf(m.metadata);
      if (meta.normalized?.kind !== 'subagent_task' || parseInstant(m.at)! < since) continue;
      const key = `${m.task_session_id}:${meta.tool_call_id}`;
      accounted.add(key);
      if (m.task_session_id && m.task_id && meta.tool_call_id) expected.add(key);
    }
    const liveRows = rows.filter((r) => parseInstant(r.at)! >= since);
    const observed = new Set(liveRows.map((r) => `${r.task_session_id}:${r.tool_call_id}`));
    const shortfall = [...expected].filter((k) => !observed.has(k)).length;
    const excess = [...observed].filter((k) => !accounted.has(k)).length;
    const collisions = liveRows.length - observed.size;

    const health = printed(run.text, /shortfall (\d+) · excess (\d+) · collisions (\d+)/);
    expect(health.slice(1).map(Number)).toEqual([shortfall, excess, collisions]);
    expect(collisions).toBe(1); // the tool_call_id two executions reused
    expect(expected.size).toBeGreaterThan(0);
  });

  it('prints counters that add up and account for the live stream', () => {
    const c = printed(run.text, /attempted (\d+) · persisted (\d+) · skipped_no_identity (\d+) · failed (\d+) · anomalous_value (\d+) · unknown_execution (\d+)/)
      .slice(1)
      .map(Number);
    const [attempted, persisted, skipped, failed, anomalous, unknown] = c;
    const frames = Number(printed(run.text, /Live stream: (\d+) frames/)[1]);
    expect(attempted).toBe(frames);
    expect(attempted).toBe(persisted + skipped + failed);
    expect([skipped, failed, anomalous, unknown]).toEqual([1, 0, 1, 2]);
  });
});

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
      .filter((l) => !/^(subagent-context demo ·|done in|\s+(sqlite3|psql) )/.test(l))
      .map((l) => l.replace(/\s+[\d.]+ ms\b/, ''))
      .join('\n');

  it('prints the same report on every run', async () => {
    const first = await open();
    const a = await captureDemo(first.args);
    // SQLite: the same file again (the demo replaces its own file); PostgreSQL: a second empty database.
    const b = await captureDemo(dialect === 'sqlite' ? first.args : (await open()).args);
    expect(stable(b.text)).toEqual(stable(a.text));
    expect(a.text).toContain('Fan-out per turn');
  });

  it('refuses a database it did not make, and leaves it untouched', async () => {
    const t = await open();
    if (dialect === 'sqlite') {
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
      const other = dialect === 'sqlite' ? ['--postgres', 'postgres://127.0.0.1:1/none'] : ['--sqlite', otherFile];
      const both = await captureDemo([...t.args, ...other]);
      expect(both.code).toBe(EXIT.usage);
      expect(both.errors).toMatch(/^subagent-context: give either --sqlite or --postgres, not both\n$/);
      const badUrl = await captureDemo(['--postgres', 'mysql://x/y']);
      expect(badUrl.code).toBe(EXIT.usage);
      expect(badUrl.errors).toMatch(/--postgres needs a postgres:\/\/ or postgresql:\/\/ URL/);
      expect([both.text, badUrl.text]).toEqual(['', '']);
      // Nothing was written: no demo table in the target, no file created.
      expect(existsSync(otherFile)).toBe(false);
      if (dialect === 'postgres') expect(await t.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
      else expect(existsSync(t.args[1])).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
