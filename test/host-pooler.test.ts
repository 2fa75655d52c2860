// DESIGN §8 "Poolers": with default StoreOptions, behind PgBouncer in transaction mode (Debian
// 12's 1.18, a small server pool, no max_prepared_statements), no frame is lost and every
// method works. PostgreSQL only: a pooler exists only there. Server connections are shared
// between clients, so anything a client leaves on "its" connection (a named prepared
// statement, a session setting) lands on connections other clients use.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { EXEC_A, EXEC_B, frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';

/** The test database's URL, routed through the suite's PgBouncer. */
function throughPgBouncer(db: TestDb): string {
  const url = new URL(db.location);
  url.port = String(inject('pgBouncerPort'));
  return url.toString();
}

describe('behind PgBouncer in transaction mode [postgres]', () => {
  let db: TestDb;
  let pool: pg.Pool;
  beforeEach(async () => {
    db = await openTestDb('postgres');
    // Many clients over a pool of 4 server connections: each client's statements land on
    // server connections other clients have used.
    pool = poolFor({ connectionString: throughPgBouncer(db), max: 40 });
  });
  afterEach(async () => {
    await pool.end();
    await db.close();
  });

  it('the connection really goes through PgBouncer in transaction mode', async () => {
    // Two statements of one client outside a transaction may run on different server
    // connections; inside one transaction they share one. With 40 clients and 4 server
    // connections, at least two distinct backends serve a burst of autocommit queries.
    const pids = new Set<number>();
    await Promise.all(
      Array.from({ length: 40 }, async () => {
        const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.01)');
        pids.add(rows[0].pid);
      }),
    );
    expect(pids.size).toBeGreaterThan(1);
    expect(pids.size).toBeLessThanOrEqual(4);
  });

  it('migrates, records 1,200 concurrent frames and a batch, lists, and checks health with zero failed frames', async () => {
    await insertSession(db, 's1', 'task-1');
    await insertMessage(db, {
      id: 'm1',
      sessionId: 's1',
      taskId: 'task-1',
      turnId: 'turn-0',
      metadata: subagentMetadata({ toolCallId: 'history', toolStatus: 'completed', subagent: { subagent_type: 'reviewer', total_tokens: 10 } }),
      createdAt: '2026-01-01 00:00:00.000001',
    });
    const logger = recordingLogger();
    const infos: unknown[] = [];
    const store = createPostgresStore(pool, { clock: steppingClock(), logger: { ...logger, info: (fields) => void infos.push(fields) } });

    const report = await store.runMigrations();
    expect(report.steps.filter((s) => s.status === 'failed')).toEqual([]);
    expect(report.ok).toBe(true);

    const outcomes = await Promise.all(
      Array.from({ length: 1200 }, (_, i) =>
        // 400 tool calls, each seen under both executions (i / 400 = 0 and 2: B, 1: A): 800 rows.
        store.recordFrame(frame({ toolCallId: `toolu_${i % 400}`, executionId: Math.floor(i / 400) % 2 ? EXEC_A : EXEC_B, payload: { total_tokens: i + 1 } })),
      ),
    );
    const batch = await store.recordFrames(
      Array.from({ length: 200 }, (_, i) => frame({ toolCallId: `batch_${i % 50}`, toolStatus: i >= 150 ? 'completed' : null })),
    );
    expect(outcomes.filter((o) => o !== 'persisted')).toEqual([]);
    expect(batch.filter((o) => o !== 'persisted')).toEqual([]);
    expect(logger.lines).toEqual([]);
    expect(store.counters()).toMatchObject({ attempted: 1400, persisted: 1400, failed: 0 });
    // The pooler really mixed server connections under the named statements, and the store
    // noticed once: from then on it runs them unnamed.
    expect(infos.filter((f) => ['42P05', '26000'].includes((f as { code?: string }).code ?? ''))).toHaveLength(1);

    const rows = await store.listBySession('s1');
    expect(rows.length).toBe(1 + 800 + 50); // the backfilled row, 400 ids × 2 executions, 50 batch ids
    expect((await store.listByTurn('s1', 'turn-1')).length).toBe(850);
    const health = await store.checkHealth();
    expect(health.state).toBe('activated');
    expect(health.shortfall).toBe(0);
  });

  it("a fresh store's first act is 40 concurrent health checks: every report right, one switch to unnamed", async () => {
    await insertSession(db, 's1', 'task-1');
    expect((await createPostgresStore(pool, { clock: steppingClock(), namedStatements: false }).runMigrations()).ok).toBe(true);
    // After capture_since, never recorded: each check must find the shortfall of 1.
    await insertMessage(db, {
      id: 'lost',
      sessionId: 's1',
      taskId: 'task-1',
      turnId: 'turn-1',
      metadata: subagentMetadata({ toolCallId: 'lost', subagent: {} }),
      createdAt: '2099-01-01 00:00:00.000001',
    });
    const logger = recordingLogger();
    const infos: unknown[] = [];
    const store = createPostgresStore(pool, { clock: steppingClock(), logger: { ...logger, info: (fields) => void infos.push(fields) } });
    const reports = await Promise.all(Array.from({ length: 40 }, () => store.checkHealth()));
    expect(reports.map((r) => [r.state, r.shortfall, r.excess, r.collisions, r.verdict])).toEqual(Array(40).fill(['activated', 1, 0, 0, 'shortfall']));
    expect(logger.lines).toEqual([]);
    // The pooler mixed server connections under the named statements, and the store noticed once.
    expect(infos.filter((f) => ['42P05', '26000'].includes((f as { code?: string }).code ?? ''))).toHaveLength(1);
  });

  it('a fresh store whose first writes are concurrent batches loses nothing', async () => {
    await insertSession(db, 's1', 'task-1');
    const store = createPostgresStore(pool, { clock: steppingClock(), logger: recordingLogger() });
    expect((await store.runMigrations()).ok).toBe(true);
    const logger = recordingLogger();
    const batches = createPostgresStore(pool, { clock: steppingClock(), logger }); // still named
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, b) =>
        batches.recordFrames(Array.from({ length: 50 }, (_, i) => frame({ toolCallId: `b${b}_${i % 25}`, toolStatus: i >= 25 ? 'completed' : null }))),
      ),
    );
    expect(outcomes.flat().filter((o) => o !== 'persisted')).toEqual([]);
    expect(logger.lines).toEqual([]);
    expect((await batches.listBySession('s1')).length).toBe(24 * 25);
  });

  it("host transactions through the pooler: every frame joins its host's transaction", async () => {
    await insertSession(db, 's1', 'task-1');
    const logger = recordingLogger();
    const store = createPostgresStore(pool, { clock: steppingClock(), logger });
    expect((await store.runMigrations()).ok).toBe(true);
    const hosts = await Promise.all(
      Array.from({ length: 30 }, async (_, h) => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query(
            `INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
             VALUES ($1, 's1', 'task-1', 'agent', '', 'tool_call', $2, now()::timestamp)`,
            [`m${h}`, subagentMetadata({ toolCallId: `h${h}`, subagent: {} })],
          );
          const one = await store.recordFrame(frame({ toolCallId: `h${h}` }), { client });
          const many = await store.recordFrames([frame({ toolCallId: `h${h}_a` }), frame({ toolCallId: `h${h}_b` })], { client });
          await client.query(h % 3 === 0 ? 'ROLLBACK' : 'COMMIT'); // every third host gives up
          return [one, ...many];
        } finally {
          client.release();
        }
      }),
    );
    expect(hosts.flat().filter((o) => o !== 'persisted')).toEqual([]);
    expect(logger.lines).toEqual([]);
    const committed = Array.from({ length: 30 }, (_, h) => h).filter((h) => h % 3 !== 0);
    expect((await store.listBySession('s1')).map((r) => r.tool_call_id).sort()).toEqual(committed.flatMap((h) => [`h${h}`, `h${h}_a`, `h${h}_b`]).sort());
    const messages = await db.query<{ id: string }>('SELECT id FROM task_session_messages ORDER BY id');
    expect(messages.map((m) => m.id).sort()).toEqual(committed.map((h) => `m${h}`).sort());
  });

  it('StoreOptions.namedStatements: false never names a statement and loses nothing either', async () => {
    await insertSession(db, 's1', 'task-1');
    const logger = recordingLogger();
    const infos: unknown[] = [];
    const store = createPostgresStore(pool, { clock: steppingClock(), namedStatements: false, logger: { ...logger, info: (f) => void infos.push(f) } });
    expect((await store.runMigrations()).ok).toBe(true);
    const outcomes = await Promise.all(Array.from({ length: 600 }, (_, i) => store.recordFrame(frame({ toolCallId: `t${i % 200}` }))));
    expect(outcomes.filter((o) => o !== 'persisted')).toEqual([]);
    expect(await store.recordFrames(Array.from({ length: 40 }, (_, i) => frame({ toolCallId: `b${i}` })))).toEqual(Array(40).fill('persisted'));
    expect(logger.lines).toEqual([]);
    expect(infos.filter((f) => (f as { code?: string }).code !== undefined)).toEqual([]); // nothing to switch from
  });
});
