// Concurrent migrators (DESIGN §3–4, AC-24d, AC-33): several processes or pools running
// runMigrations() on one store at once all succeed, the upgrade and the backfill each happen
// exactly once, every subagent gets one row, and each activation key is written once.
import { spawn } from 'node:child_process';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS, createPostgresStore, type MigrationOptions, type MigrationReport } from '../src/index.js';
import { endStateFacts, metaKeys, seedPreAmendmentRows, stageProgressKeys, stepStatuses } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';
import { backfilledToolCalls, seedBusyHostStore, survivingQualifyingToolCalls } from './helpers/busy-host-store.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';

describeBothDialects('runMigrations: concurrent migrators', (dialect) => {
  let db: TestDb;
  afterEach(async () => db?.close());

  it(`${byDialect(dialect, { sqlite: 'two processes', postgres: 'four pools' })} migrating one pre-amendment store at once: all succeed, each step's work happens once`, async () => {
    db = await openTestDb(dialect, 'legacy');
    await insertSession(db, 's1');
    await insertSession(db, 's2');
    await seedPreAmendmentRows(db);
    for (let i = 0; i < 40; i++) {
      const at = hostTimestamp(dialect, `2026-08-01 10:00:${String(i).padStart(2, '0')}`);
      // every fourth tool call appears twice (AC-21b): 40 messages, 30 subagents
      const toolCallId = `toolu_${i % 4 === 3 ? i - 1 : i}`;
      await insertMessage(db, {
        id: `m${i}`,
        sessionId: i % 4 < 2 ? 's1' : 's2',
        createdAt: at,
        metadata: subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { total_tokens: i + 1 } }),
      });
    }
    // Every kandev_meta write is recorded, so "written once" is counted, not inferred.
    await db.exec(`CREATE TABLE kandev_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '')`);
    await db.exec(`CREATE TABLE meta_writes (key TEXT NOT NULL)`);
    await db.exec(
      byDialect(dialect, {
        sqlite: `CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); END`,
        postgres: `CREATE FUNCTION audit_meta() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); RETURN NULL; END $f$;
           CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta FOR EACH ROW EXECUTE FUNCTION audit_meta();`,
      }),
    );

    // PostgreSQL: under REPEATABLE READ as the database's default, which the migrators must not
    // inherit (their snapshot would predate the lock: the ones that waited failed with 40001).
    await byDialect(dialect, {
      sqlite: async () => {},
      postgres: () => db.exec(`ALTER DATABASE "${new URL(db.location).pathname.slice(1)}" SET default_transaction_isolation = 'repeatable read'`),
    })();
    const reports = await byDialect(dialect, { sqlite: () => migrateFromProcesses(db, 2), postgres: () => migrateFromPools(db, 4) })();

    for (const report of reports) expect(report.ok, JSON.stringify(report)).toBe(true);
    const applied = (step: string) => reports.filter((r) => stepStatuses(r)[step] === 'applied').length;
    expect(applied('upgrade_pre_amendment_table')).toBe(1);
    expect(applied('record_execution_since')).toBe(1);
    expect(applied('backfill_subagent_contexts')).toBe(1);
    expect(await endStateFacts(db)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false });
    const perKey = await db.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM task_session_subagents GROUP BY task_session_id, agent_execution_id, tool_call_id HAVING count(*) > 1`,
    );
    expect(perKey).toEqual([]);
    const backfilled = await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM task_session_subagents WHERE source = 'backfill'`);
    expect(Number(backfilled[0].n)).toBe(30 + 1); // 30 subagents + the pre-amendment row that was itself backfilled
    // Each activation key written once, and the backfill's high-water mark read and kept once
    // (the chunked backfill's progress key, removed when it finished; on SQLite with its first
    // phase's keys, inserted once each), whoever ran which chunk.
    const writes = await db.query<{ key: string }>(`SELECT key FROM meta_writes ORDER BY key`);
    expect(writes.map((w) => w.key)).toEqual([...Object.values(ACTIVATION_KEYS), BACKFILL_PROGRESS_KEYS.through, ...stageProgressKeys(dialect)].sort());
    expect(Object.keys(await metaKeys(db)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
  });

  // PostgreSQL: its session walk, and its window walk (windows of 200 s: 200 messages each).
  for (const walk of byDialect(dialect, { sqlite: ['sessions'] as Walk[], postgres: ['sessions', 'windows'] as Walk[] }))
    it(`${byDialect(dialect, { sqlite: 'two processes', postgres: 'four pools' })} sharing a backfill of many chunks: each ${walk === 'windows' ? 'message read' : 'session walked'} once, each key inserted once`, async () => {
      db = await openTestDb(dialect, 'package');
      const sessions = 60;
      await seedBusyHostStore(db, { sessions, messages: 6_000, descriptionChars: 20 });
      await db.exec(`CREATE TABLE meta_writes (key TEXT NOT NULL)`);
      await db.exec(
        byDialect(dialect, {
          sqlite: `CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); END`,
          postgres: `CREATE FUNCTION audit_meta() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN INSERT INTO meta_writes (key) VALUES (NEW.key); RETURN NULL; END $f$;
           CREATE TRIGGER audit_meta AFTER INSERT ON kandev_meta FOR EACH ROW EXECUTE FUNCTION audit_meta();`,
        }),
      );
      // One session per chunk and a pause between chunks, so the migrators interleave.
      const options: MigrationOptions = { backfillChunk: { maxSessions: 1, pauseMs: 5, walk, maxWindowMs: 200_000 } };
      const reports = await byDialect(dialect, { sqlite: () => migrateFromProcesses(db, 2, options), postgres: () => migrateFromPools(db, 4, options) })();

      for (const report of reports) expect(report.ok, JSON.stringify(report)).toBe(true);
      expect(reports.filter((r) => stepStatuses(r).backfill_subagent_contexts === 'applied')).toHaveLength(1);
      // Every session walked (every message read) by exactly one migrator: the walks add up to the
      // store's, and more than one migrator took part.
      expect(reports.reduce((sum, r) => sum + r.walked, 0)).toBe(walk === 'windows' ? 6_000 : sessions);
      expect(reports.filter((r) => r.walked > 0).length).toBeGreaterThan(1);
      expect(await backfilledToolCalls(db)).toEqual(await survivingQualifyingToolCalls(db));
      const writes = (await db.query<{ key: string }>(`SELECT key FROM meta_writes`)).map((w) => w.key).sort();
      expect(writes).toEqual(
        [
          ...Object.values(ACTIVATION_KEYS),
          BACKFILL_PROGRESS_KEYS.through,
          walk === 'windows' ? BACKFILL_PROGRESS_KEYS.windowTop : BACKFILL_PROGRESS_KEYS.cursor,
          ...stageProgressKeys(dialect),
        ].sort(),
      );
    });
});

type Walked = MigrationReport & { walked: number };
type Walk = 'sessions' | 'windows';

/** N independent pools (as N host processes would have), all migrating at once. */
async function migrateFromPools(db: TestDb, n: number, options: MigrationOptions = {}): Promise<Walked[]> {
  const pools = Array.from({ length: n }, () => poolFor({ connectionString: db.location, max: 3 }));
  try {
    const warnings: unknown[] = [];
    const stores = pools.map((pool) => createPostgresStore(pool, { logger: { warn: (fields) => void warnings.push(fields) } }));
    const reports = await Promise.all(
      stores.map(async (s) => {
        let walked = 0;
        const report = await s.runMigrations({ ...options, onBackfillProgress: (p) => void (walked = p.phase === 'windows' ? p.messagesScanned : p.sessions) });
        return { ...report, walked };
      }),
    );
    expect(warnings).toEqual([]);
    return reports;
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
}

/** N child processes, each with its own connection to the SQLite file, released together. */
async function migrateFromProcesses(db: TestDb, n: number, options: MigrationOptions = {}): Promise<Walked[]> {
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, ['test/fixtures/migrations-child.mjs', db.location, JSON.stringify(options)], {
      cwd: process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  try {
    const outputs = children.map((child) => {
      let out = '';
      let err = '';
      let onReady: () => void;
      const ready = new Promise<void>((resolve) => (onReady = resolve));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.startsWith('ready\n')) onReady();
      });
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const done = new Promise<string>((resolve, reject) =>
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`)))),
      );
      return { ready, done, stderr: () => err };
    });
    await Promise.all(outputs.map((o) => o.ready));
    for (const child of children) child.stdin.end('go\n');
    const texts = await Promise.all(outputs.map((o) => o.done));
    for (const o of outputs) expect(o.stderr()).toBe(''); // no WARN from either process
    return texts.map((t) => JSON.parse(t.slice('ready\n'.length)) as Walked);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}
