// The recorder inside a host's transaction (DESIGN §8): updates handed over while the host's
// transaction is open are written inside it, every one of them, so the host's rollback undoes
// them all. On SQLite the transaction is synchronous (better-sqlite3's db.transaction() ends
// when its function returns), so a write the recorder deferred to a later turn landed after
// it, autocommitted: the second of two updates survived the rollback. PostgreSQL: the host
// passes the client it has begun on, and waits for the writes (flush) before it ends.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder } from '../src/acp/index.js';
import { acpSessionOf, contextFor, loadAcpFixture } from './helpers/acp-fixtures.js';
import { byDialect } from './helpers/by-dialect.js';
import { failWritesOf } from './helpers/live-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const S = 'acp-1';
const launch = (toolCallId: string) => ({
  sessionId: S,
  update: { sessionUpdate: 'tool_call', toolCallId, title: 'task', kind: 'think', status: 'pending', rawInput: {} },
});

describeBothDialects('ACP recorder in a host transaction', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const count = async (table: string) => Number((await db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const storedIds = async () =>
    (await db.query<{ tool_call_id: string }>('SELECT tool_call_id FROM task_session_subagents ORDER BY tool_call_id')).map((r) => r.tool_call_id);

  /** Hands `updates` over without awaiting inside one host transaction, then commits or rolls back. */
  async function inTransaction(updates: { sessionId: string; update: object }[], end: 'commit' | 'rollback', acpSessionId = S) {
    const store = db.store();
    const recorder = createAcpRecorder(store, { context: contextFor(acpSessionId) });
    await byDialect(dialect, {
      sqlite: async () => {
        const run = db.sqlite!.transaction(() => {
          for (const u of updates) void recorder.sessionUpdate(u);
          if (end === 'rollback') throw new Error('the host rolls back');
        });
        if (end === 'rollback') expect(() => run()).toThrow('the host rolls back');
        else run();
        await recorder.flush();
      },
      postgres: async () => {
        const client = await db.pool!.connect();
        try {
          await client.query('BEGIN');
          for (const u of updates) void recorder.sessionUpdate(u, { client });
          await recorder.flush();
          await client.query(end === 'commit' ? 'COMMIT' : 'ROLLBACK');
        } finally {
          client.release();
        }
      },
    })();
    return store.counters();
  }

  const launches = ['t1', 't2', 't3'].map(launch);

  it('a rollback undoes every update handed over inside the transaction', async () => {
    expect(await inTransaction(launches, 'rollback')).toMatchObject({ attempted: 3, persisted: 3, failed: 0 });
    expect(await storedIds()).toEqual([]);
  });

  it('a commit keeps every one of them', async () => {
    expect(await inTransaction(launches, 'commit')).toMatchObject({ attempted: 3, persisted: 3, failed: 0 });
    expect(await storedIds()).toEqual(['t1', 't2', 't3']);
  });

  it('a write that fails inside the transaction does not push the later ones out: the rollback still undoes them', async () => {
    await failWritesOf(db, 't2'); // the middle launch's row fails (a host trigger)
    const launchesAndMore = ['t1', 't2', 't3', 't4'].map(launch);
    expect(await inTransaction(launchesAndMore, 'rollback')).toMatchObject({ attempted: 4, persisted: 3, failed: 1 });
    expect(await storedIds()).toEqual([]);
    expect(await inTransaction(launchesAndMore, 'commit')).toMatchObject({ attempted: 4, persisted: 3, failed: 1 });
    expect(await storedIds()).toEqual(['t1', 't3', 't4']);
  });

  // Qwen Code's frames carry usage: each one's ledger row is written too, and must not push the next update out.
  it('with usage-ledger rows (a recorded Qwen Code run): a rollback undoes the rows and the ledger, a commit keeps both', async () => {
    const qwen = loadAcpFixture('qwen-fanout');
    const rolledBack = await inTransaction(qwen, 'rollback', acpSessionOf('qwen-fanout'));
    expect(rolledBack.persisted).toBeGreaterThan(0);
    expect(rolledBack).toMatchObject({ failed: 0, ledger_failed: 0 });
    expect([await count('task_session_subagents'), await count('task_session_subagent_usage')]).toEqual([0, 0]);
    await inTransaction(qwen, 'commit', acpSessionOf('qwen-fanout'));
    expect(await count('task_session_subagents')).toBeGreaterThan(0);
    expect(await count('task_session_subagent_usage')).toBeGreaterThan(0);
  });
});
