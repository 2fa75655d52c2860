// The package's own PostgreSQL write transactions run at READ COMMITTED whatever the database's
// default (src/postgres/transaction.ts, BEGIN_READ_COMMITTED): its upserts rely on READ
// COMMITTED's ON CONFLICT, where a row another transaction committed while the statement waited
// for it is merged by the conflict clause. Under a default of REPEATABLE READ the same wait ended
// in a serialization failure (40001): a recordFrames batch whose two frames each met another
// transaction's write lost one of them (the first attempt failed, and its frame-by-frame redo
// failed again on the second lock). The other transactions commit one at a time, each once the
// store's backend is seen waiting on it, so the interleaving is the test's, not the scheduler's.
// The proxy's batch transaction likewise (without it both of its jobs failed: its per-job redo
// runs in the same transaction, so the same snapshot). A lone recordFrame is one autocommitted
// statement, with no transaction of the package's to set: in the same spot it failed 40001 with a
// WARN, and is now retried (src/postgres/transaction.ts, retryAutocommitted), as are the usage
// ledger rows recordFrame and recordFrames write on the pool; a write in the host's transaction
// is not (its snapshot is the host's for the whole transaction).
// PostgreSQL only: SQLite has one writer at a time and no isolation levels.
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, databaseName, poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type RecordOutcome, type SubagentContextStore, type SubagentFrame } from '../src/index.js';
import { createWallClock } from '../src/instant.js';
import type { WriteJob } from '../src/proxy/acp-identity.js';
import { AUTOCOMMIT_ATTEMPTS, retryAutocommitted } from '../src/postgres/transaction.js';
import { openPostgresProxyDatabase } from '../src/proxy/postgres-proxy-database.js';
import { waitUntil } from './helpers/faults.js';
import { frame } from './helpers/live-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

/** Another transaction holding the subagent row of `toolCallId` (an uncommitted update). */
async function holdRow(url: string, toolCallId: string): Promise<pg.Client> {
  const client = clientFor(url);
  await client.connect();
  await client.query('BEGIN');
  await client.query("UPDATE task_session_subagents SET description = 'held by ' || tool_call_id WHERE tool_call_id = $1", [toolCallId]);
  return client;
}

/**
 * Counts the upsert's attempts on task_session_subagents: a BEFORE INSERT trigger takes a value
 * from a sequence, which no rollback gives back (it fires before the conflict check and its wait).
 */
async function countAttempts(db: TestDb): Promise<() => Promise<number>> {
  await db.exec(`CREATE SEQUENCE upsert_attempts;
    CREATE FUNCTION count_upsert_attempt() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('upsert_attempts'); RETURN NEW; END $$;
    CREATE TRIGGER count_upsert_attempt BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION count_upsert_attempt();`);
  return async () => Number((await db.query<{ n: string }>('SELECT last_value - 1 + (CASE WHEN is_called THEN 1 ELSE 0 END) AS n FROM upsert_attempts'))[0].n);
}

/** Commits each holder once a backend waits on it, until none is left; then the write's outcome. */
async function releaseAsBlocked<T>(admin: pg.Client, holders: pg.Client[], write: Promise<T>): Promise<T> {
  const pids = new Map<number, pg.Client>();
  for (const h of holders) pids.set(Number((await h.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid), h);
  while (pids.size > 0) {
    let blocking: number | undefined;
    await waitUntil('the store waits on a held row', async () => {
      const { rows } = await admin.query<{ blocker: number }>(
        'SELECT unnest(pg_blocking_pids(pid)) AS blocker FROM pg_stat_activity WHERE datname = current_database()',
      );
      blocking = rows.map((r) => Number(r.blocker)).find((pid) => pids.has(pid));
      return blocking !== undefined;
    });
    await pids.get(blocking!)!.query('COMMIT');
    await pids.get(blocking!)!.end();
    pids.delete(blocking!);
  }
  return write;
}

describe('own write transactions at READ COMMITTED under a REPEATABLE READ default [postgres]', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let admin: pg.Client;
  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
    await db.exec(`ALTER DATABASE ${databaseName(db.location)} SET default_transaction_isolation = 'repeatable read'`);
    pool = poolFor({ connectionString: db.location, max: 2 }); // new sessions: they take the default
    admin = clientFor(db.location);
    await admin.connect();
  });
  afterEach(async () => {
    await admin.end();
    await pool.end();
    await db.close();
  });

  it('recordFrames: each frame that waited for another transaction merges into its row', async () => {
    expect((await pool.query<{ d: string }>("SELECT current_setting('default_transaction_isolation') AS d")).rows[0]).toEqual({ d: 'repeatable read' });
    const logger = recordingLogger();
    const store = createPostgresStore(pool, { logger });
    for (const toolCallId of ['toolu_k1', 'toolu_k2']) expect(await store.recordFrame(frame({ toolCallId }))).toBe('persisted');
    const holders = [await holdRow(db.location, 'toolu_k1'), await holdRow(db.location, 'toolu_k2')];
    const outcomes: RecordOutcome[] = await releaseAsBlocked(
      admin,
      holders,
      store.recordFrames([frame({ toolCallId: 'toolu_k1', payload: { model: 'm1' } }), frame({ toolCallId: 'toolu_k2', payload: { model: 'm2' } })]),
    );
    expect(outcomes, JSON.stringify(logger.lines)).toEqual(['persisted', 'persisted']);
    expect(await db.query('SELECT tool_call_id, description, model FROM task_session_subagents ORDER BY tool_call_id')).toEqual([
      { tool_call_id: 'toolu_k1', description: 'held by toolu_k1', model: 'm1' },
      { tool_call_id: 'toolu_k2', description: 'held by toolu_k2', model: 'm2' },
    ]);
  });

  it('recordFrame (one autocommitted statement, the default applies): the serialization failure is retried, and the frame merges into the row', async () => {
    const logger = recordingLogger();
    const store = createPostgresStore(pool, { logger });
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_k1' }))).toBe('persisted');
    const attempts = await countAttempts(db);
    const holder = await holdRow(db.location, 'toolu_k1');
    expect(await releaseAsBlocked(admin, [holder], store.recordFrame(frame({ toolCallId: 'toolu_k1', payload: { model: 'm1' } })))).toBe('persisted');
    expect(await attempts()).toBe(2); // the one that waited and failed 40001, then the one that merged
    expect(logger.lines, JSON.stringify(logger.lines)).toEqual([]);
    expect(store.counters()).toMatchObject({ persisted: 2, failed: 0 });
    expect(await db.query('SELECT description, model FROM task_session_subagents')).toEqual([{ description: 'held by toolu_k1', model: 'm1' }]);
  });

  it("a write in the host's transaction is never retried: it fails 40001 once, and the host's transaction stays usable", async () => {
    const logger = recordingLogger();
    const store = createPostgresStore(pool, { logger });
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_h1' }))).toBe('persisted');
    const attempts = await countAttempts(db);
    const host = clientFor(db.location);
    await host.connect();
    try {
      await host.query('BEGIN'); // the database's default: REPEATABLE READ
      await host.query('SELECT 1'); // its snapshot, taken before the other transaction commits
      const holder = await holdRow(db.location, 'toolu_h1');
      const outcome = await releaseAsBlocked(admin, [holder], store.recordFrame(frame({ toolCallId: 'toolu_h1', payload: { model: 'm1' } }), { client: host }));
      expect(outcome).toBe('failed');
      expect(await attempts()).toBe(1);
      expect(logger.lines.map((w) => w.fields.code)).toEqual(['40001']);
      expect((await host.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]); // its savepoint was undone alone
      await host.query('COMMIT');
    } finally {
      await host.end();
    }
    expect(await db.query('SELECT description, model FROM task_session_subagents')).toEqual([{ description: 'held by toolu_h1', model: null }]);
  });

  // The usage ledger rows recordFrame and recordFrames write on the pool, after the subagent row.
  it.each([
    ['recordFrame', (store: SubagentContextStore, f: SubagentFrame) => store.recordFrame(f)],
    ['recordFrames', async (store: SubagentContextStore, f: SubagentFrame) => (await store.recordFrames([f]))[0]],
  ] as const)("%s's usage ledger row (autocommitted): retried the same way", async (_, write) => {
    const logger = recordingLogger();
    const store = createPostgresStore(pool, { logger });
    const usage = (requests: number) => frame({ toolCallId: 'toolu_u1', usage: { model: 'm1', requests, input_tokens: 10 } });
    expect(await write(store, usage(1))).toBe('persisted');
    const holder = clientFor(db.location);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query("UPDATE task_session_subagent_usage SET output_tokens = 7 WHERE tool_call_id = 'toolu_u1'");
    expect(await releaseAsBlocked(admin, [holder], write(store, usage(5)))).toBe('persisted');
    expect(logger.lines, JSON.stringify(logger.lines)).toEqual([]);
    expect(
      await db.query(
        'SELECT requests::int AS requests, input_tokens::int AS input_tokens, output_tokens::int AS output_tokens FROM task_session_subagent_usage',
      ),
    ).toEqual([{ requests: 5, input_tokens: 10, output_tokens: 7 }]);
  });

  it('the retry is bounded: a statement that keeps failing 40001 or 40P01 is tried three times, any other error once', async () => {
    const raising = (code: string) => {
      let attempts = 0;
      const run = () => (attempts++, pool.query(`DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '${code}'; END $$`));
      return { run, attempts: () => attempts };
    };
    for (const [code, expected] of [
      ['40001', AUTOCOMMIT_ATTEMPTS],
      ['40P01', AUTOCOMMIT_ATTEMPTS],
      ['23505', 1],
    ] as const) {
      const r = raising(code);
      await expect(retryAutocommitted(r.run)).rejects.toMatchObject({ code });
      expect(r.attempts(), code).toBe(expected);
    }
    expect(AUTOCOMMIT_ATTEMPTS).toBe(3);
  });

  it("the proxy's batch: each job that waited for another transaction is written", async () => {
    const logger = recordingLogger();
    const proxy = openPostgresProxyDatabase(db.location, { executionId: 'exec-rc', logger, clock: createWallClock() });
    try {
      expect((await proxy.prepare()).ok).toBe(true);
      const job = (toolCallId: string, model?: string): WriteJob => ({
        kind: 'subagent',
        sessionId: 's1',
        taskId: 'task-1',
        turnId: null,
        toolCallId,
        parentToolCallId: null,
        toolStatus: 'pending',
        messageStatus: 'pending',
        payload: model ? { model } : {},
      });
      expect(await proxy.write([job('toolu_p1'), job('toolu_p2')], createWallClock()())).toMatchObject({ written: 2, failed: 0 });
      const holders = [await holdRow(db.location, 'toolu_p1'), await holdRow(db.location, 'toolu_p2')];
      const result = await releaseAsBlocked(admin, holders, proxy.write([job('toolu_p1', 'm1'), job('toolu_p2', 'm2')], createWallClock()()));
      expect(result, JSON.stringify(logger.lines)).toMatchObject({ written: 2, failed: 0 });
      expect(
        await db.query("SELECT tool_call_id, description, model FROM task_session_subagents WHERE tool_call_id LIKE 'toolu_p%' ORDER BY tool_call_id"),
      ).toEqual([
        { tool_call_id: 'toolu_p1', description: 'held by toolu_p1', model: 'm1' },
        { tool_call_id: 'toolu_p2', description: 'held by toolu_p2', model: 'm2' },
      ]);
    } finally {
      await proxy.close();
    }
  });
});
