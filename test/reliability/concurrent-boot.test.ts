// Concurrent processes (issue 7): four host processes boot at once against one store —
// runMigrations() then a stream of recordFrame — on one SQLite file and on one PostgreSQL
// database. All succeed, the backfill happens once, every key is written once, no frame is
// lost, and each process's counters add up.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS, type MigrationReport, type WriterCounters } from '../../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../../src/migrations/backfill-step.js';
import { describeBothDialects, openTestDb, type TestDb } from '../helpers/test-db.js';
import { byDialect } from '../helpers/by-dialect.js';
import { hostTimestamp } from '../helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from '../helpers/seed-host-rows.js';
import { stageProgressKeys } from '../helpers/migration-db.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'boot-and-stream-child.mjs');
const PROCESSES = 4;
const FRAMES = 400;
const SHARED_KEYS = 5;
const QUALIFYING_MESSAGES = 60;

interface ChildResult {
  report: MigrationReport;
  counters: WriterCounters;
  outcomes: Record<string, number>;
}

function start(db: TestDb, index: number) {
  const child = spawn(process.execPath, [CHILD, db.dialect, db.location, String(index), String(FRAMES), String(SHARED_KEYS)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
  const done = new Promise<ChildResult>((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length)) as ChildResult) : reject(new Error(`child ${index} exited ${code}: ${err}`)),
    ),
  );
  // A child that exits before it is ready fails `ready` as well, so the test never waits on it.
  const exitedFirst = done.then(() => Promise.reject(new Error(`child ${index} exited before it was ready`)));
  return { ready: Promise.race([ready, exitedFirst]), go: () => child.stdin.end('go\n'), done };
}

describeBothDialects('concurrent boot', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect); // predates the feature: host tables only
    for (let s = 0; s < 7; s++) await insertSession(db, `s${s}`, `task-${s}`);
    for (let m = 0; m < QUALIFYING_MESSAGES; m++) {
      await insertMessage(db, {
        id: `m${m}`,
        sessionId: `s${m % 7}`,
        taskId: `task-${m % 7}`,
        turnId: `turn-${m}`,
        metadata: subagentMetadata({ toolCallId: `hist_${m}`, toolStatus: 'completed', subagent: { status: 'completed', total_tokens: 100 + m } }),
        createdAt: hostTimestamp(db, 1_785_000_000_000_000_000n + BigInt(m) * 1_000_000n),
      });
    }
    // The host's kandev_meta, audited so a key written twice would show.
    await db.exec("CREATE TABLE kandev_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '')");
    await db.exec('CREATE TABLE meta_audit (key TEXT NOT NULL)');
    await db.exec(
      byDialect(dialect, {
        sqlite: 'CREATE TRIGGER meta_audit_insert AFTER INSERT ON kandev_meta BEGIN INSERT INTO meta_audit (key) VALUES (NEW.key); END',
        postgres: `CREATE FUNCTION meta_audit_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO meta_audit (key) VALUES (NEW.key); RETURN NEW; END $$;
           CREATE TRIGGER meta_audit_insert AFTER INSERT ON kandev_meta FOR EACH ROW EXECUTE FUNCTION meta_audit_insert();`,
      }),
    );
  });
  afterEach(async () => db.close());

  it(`${PROCESSES} processes boot at once: all succeed, backfill once, no lost frames`, async () => {
    const children = Array.from({ length: PROCESSES }, (_, i) => start(db, i));
    await Promise.all(children.map((c) => c.ready)); // every child started, its store open, waiting
    children.forEach((c) => c.go());
    const results = await Promise.all(children.map((c) => c.done));

    for (const r of results) {
      expect(r.report.ok).toBe(true);
      expect(r.counters.attempted).toBe(FRAMES);
      expect(r.counters.persisted).toBe(FRAMES); // no lost frame
      expect(r.counters.attempted).toBe(r.counters.skipped_no_identity + r.counters.persisted + r.counters.failed);
      expect(r.outcomes).toEqual({ persisted: FRAMES });
    }
    const backfills = results.filter((r) => r.report.steps.some((s) => s.name === 'backfill_subagent_contexts' && s.status === 'applied'));
    expect(backfills).toHaveLength(1);

    const keys = await db.query<{ key: string }>('SELECT key FROM kandev_meta ORDER BY key');
    expect(keys.map((k) => k.key)).toEqual(Object.values(ACTIVATION_KEYS).sort());
    // Each activation key inserted once, and the backfill's kept mark (read before its first
    // chunk, removed with the keys' write) once too, as SQLite's first-phase keys: the
    // processes shared one backfill.
    const writes = await db.query<{ key: string; n: number | string }>('SELECT key, COUNT(*) AS n FROM meta_audit GROUP BY key ORDER BY key');
    expect(writes.map((w) => [w.key, Number(w.n)])).toEqual(
      [...Object.values(ACTIVATION_KEYS), BACKFILL_PROGRESS_KEYS.through, ...stageProgressKeys(dialect)].sort().map((k) => [k, 1]),
    );
    const [{ n: backfilled }] = await db.query<{ n: number | string }>("SELECT COUNT(*) AS n FROM task_session_subagents WHERE source = 'backfill'");
    expect(Number(backfilled)).toBe(QUALIFYING_MESSAGES);
    // One live row per distinct key sent: each process's own keys plus the shared ones.
    const ownKeys = PROCESSES * (FRAMES - FRAMES / 10);
    const [{ n: live }] = await db.query<{ n: number | string }>("SELECT COUNT(*) AS n FROM task_session_subagents WHERE source = 'live'");
    // Shared keys: frame i (a multiple of 10) used session s(i % 7) and shared_((i / 10) % 5).
    const sharedKeys = new Set(Array.from({ length: FRAMES / 10 }, (_, j) => `s${(j * 10) % 7}|shared_${j % SHARED_KEYS}`));
    expect(Number(live)).toBe(ownKeys + sharedKeys.size);
    const sharedRows = await db.query<{ task_session_id: string; tool_call_id: string; agent_execution_id: string }>(
      "SELECT task_session_id, tool_call_id, agent_execution_id FROM task_session_subagents WHERE tool_call_id LIKE 'shared_%'",
    );
    expect(new Set(sharedRows.map((r) => `${r.task_session_id}|${r.tool_call_id}`))).toEqual(sharedKeys);
    expect(sharedRows.every((r) => r.agent_execution_id === 'exec-shared')).toBe(true);
    const [{ n: distinct }] = await db.query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM (SELECT DISTINCT task_session_id, agent_execution_id, tool_call_id FROM task_session_subagents) AS d',
    );
    const [{ n: total }] = await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM task_session_subagents');
    expect(Number(distinct)).toBe(Number(total)); // exactly one row per key
  }, 120_000);
});
