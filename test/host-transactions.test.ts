// DESIGN §8 "Host transactions": a host writes its message row and the subagent row in ONE
// transaction, the arrangement in which a shortfall is impossible. PostgreSQL: the host passes
// the pg client on which it has BEGUN (`recordFrame(frame, { client })`); SQLite: the store
// writes on the host's own connection and joins whatever transaction is open there. Either
// way the write sits in a savepoint: a frame the database rejects (a real trigger) is
// 'failed' and undone alone, the host's transaction goes on and commits its message, and the
// store never commits or rolls back the host's transaction. Never rejects; counters as usual.
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RecordOptions, RecordOutcome, SubagentContextStore, SubagentFrame, WriterCounters } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { failWritesOf, frame, storedToolCallIds } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';

const identityHolds = (c: WriterCounters) => c.attempted === c.skipped_no_identity + c.persisted + c.failed;

const MESSAGE_SQL = `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at)
  VALUES ($1, 's1', 'task-1', 'turn-1', 'agent', '', 'tool_call', $2, $3)`;

/** The host's side of one transaction: its own message write, then the store's, then its COMMIT or ROLLBACK. */
interface HostTransaction {
  /** The host writes its message row for `toolCallId` inside the transaction. */
  writeMessage(id: string, toolCallId: string): Promise<void>;
  /** The `{ client }` option the host passes (SQLite: its own connection, which the store already writes on). */
  readonly options: RecordOptions;
  /** Runs a statement on the host's connection, inside the transaction. */
  exec(sql: string): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

async function beginHostTransaction(db: TestDb): Promise<HostTransaction> {
  const at = hostTimestamp(db, '2026-07-25 17:20:00.000001');
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const conn = db.sqlite!;
    conn.exec('BEGIN IMMEDIATE');
    const insert = conn.prepare(MESSAGE_SQL.replace(/\$(\d)/g, '?'));
    return {
      writeMessage: async (id, toolCallId) => void insert.run(id, subagentMetadata({ toolCallId, subagent: { subagent_type: 'reviewer' } }), at),
      options: { client: conn },
      exec: async (sql) => void conn.exec(sql),
      commit: async () => void conn.exec('COMMIT'),
      rollback: async () => void (conn.inTransaction && conn.exec('ROLLBACK')),
    };
  }
  const client: pg.PoolClient = await db.pool!.connect();
  await client.query('BEGIN');
  let ended = false;
  const end = async (sql: string) => {
    if (ended) return;
    ended = true;
    try {
      await client.query(sql);
    } finally {
      client.release();
    }
  };
  return {
    writeMessage: async (id, toolCallId) =>
      void (await client.query(MESSAGE_SQL, [id, subagentMetadata({ toolCallId, subagent: { subagent_type: 'reviewer' } }), at])),
    options: { client },
    exec: async (sql) => void (await client.query(sql)),
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
  };
}

describeBothDialects('host transactions', (dialect) => {
  let db: TestDb;
  let open: HostTransaction[];
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
    open = [];
  });
  afterEach(async () => {
    for (const host of open) await host.rollback().catch(() => undefined); // a failed test's transaction
    await db.close();
  });
  const begin = async () => {
    const host = await beginHostTransaction(db);
    open.push(host);
    return host;
  };

  const messages = async () => (await db.query<{ id: string }>('SELECT id FROM task_session_messages ORDER BY id')).map((r) => r.id);
  /** What another connection sees: the host's uncommitted rows are not there yet. */
  const committedRowsSeenElsewhere = async (): Promise<number> => {
    if (byDialect(db.dialect, { sqlite: false, postgres: true }))
      return Number((await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM task_session_subagents'))[0].n);
    const other = new Database(db.location, { readonly: true });
    try {
      return (other.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get() as { n: number }).n;
    } finally {
      other.close();
    }
  };

  it('the row commits with the host message, and not before: the store never ends the host transaction', async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const host = await begin();
    await host.writeMessage('m1', 'toolu_a');
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_a' }), host.options)).toBe('persisted');
    expect(await store.recordFrames([frame({ toolCallId: 'toolu_b' }), frame({ toolCallId: 'toolu_c', toolStatus: 'completed' })], host.options)).toEqual([
      'persisted',
      'persisted',
    ]);
    expect(await committedRowsSeenElsewhere()).toBe(0); // still inside the host's open transaction
    await host.commit();
    expect(await messages()).toEqual(['m1']);
    expect(await storedToolCallIds(db)).toEqual(['toolu_a', 'toolu_b', 'toolu_c']);
    expect(logger.lines).toEqual([]);
    expect(store.counters()).toEqual({
      attempted: 3,
      persisted: 3,
      skipped_no_identity: 0,
      anomalous_value: 0,
      failed: 0,
      unknown_execution: 0,
      ledger_failed: 0,
    });
  });

  it("no savepoint of the store's is left in the host transaction, after a success or a failure", async () => {
    await failWritesOf(db, 'poison');
    const store = db.store({ clock: steppingClock() });
    const host = await begin();
    /** RELEASE of a savepoint that does not exist fails; a probe savepoint keeps PostgreSQL's transaction usable. */
    const expectNoSavepoint = async (name: string) => {
      await host.exec('SAVEPOINT probe');
      await expect(host.exec(`RELEASE SAVEPOINT ${name}`)).rejects.toThrow(/savepoint/i);
      await host.exec('ROLLBACK TO SAVEPOINT probe');
      await host.exec('RELEASE SAVEPOINT probe');
    };
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_a' }), host.options)).toBe('persisted');
    expect(await store.recordFrame(frame({ toolCallId: 'poison' }), host.options)).toBe('failed');
    expect(await store.recordFrames([frame({ toolCallId: 'toolu_b' }), frame({ toolCallId: 'poison' })], host.options)).toEqual(['persisted', 'failed']);
    // PostgreSQL: the store's own names; SQLite: better-sqlite3's db.transaction() savepoint (src/sqlite/transaction.ts).
    const storeSavepoints: Record<typeof dialect, string[]> = { postgres: ['subagent_context_frame', 'subagent_context_batch'], sqlite: ['`\t_bs3.\t`'] };
    for (const name of storeSavepoints[dialect]) await expectNoSavepoint(name);
    await host.commit();
    expect(await storedToolCallIds(db)).toEqual(['toolu_a', 'toolu_b']);
  });

  it('a host rollback leaves neither its message nor the row', async () => {
    const store = db.store({ clock: steppingClock() });
    const host = await begin();
    await host.writeMessage('m1', 'toolu_a');
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_a' }), host.options)).toBe('persisted');
    expect(await store.recordFrames([frame({ toolCallId: 'toolu_b' })], host.options)).toEqual(['persisted']);
    await host.rollback();
    expect(await messages()).toEqual([]);
    expect(await storedToolCallIds(db)).toEqual([]);
    // 'persisted' meant "written into the host's transaction"; the host decided its fate.
    expect(store.counters()).toMatchObject({ attempted: 2, persisted: 2, failed: 0 });
  });

  it('a frame the database rejects is failed (WARN, counted) and the host transaction still commits its message', async () => {
    await failWritesOf(db, 'poison');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const host = await begin();
    await host.writeMessage('m1', 'poison');
    expect(await store.recordFrame(frame({ toolCallId: 'poison' }), host.options)).toBe('failed');
    // The host's transaction is still usable: its next message and the next frames go in.
    await host.writeMessage('m2', 'toolu_ok');
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_ok' }), host.options)).toBe('persisted');
    expect(
      await store.recordFrames([frame({ toolCallId: 'toolu_b' }), frame({ toolCallId: 'poison' }), frame({ toolCallId: 'toolu_c' })], host.options),
    ).toEqual(['persisted', 'failed', 'persisted']);
    await host.commit();

    expect(await messages()).toEqual(['m1', 'm2']);
    expect(await storedToolCallIds(db)).toEqual(['toolu_b', 'toolu_c', 'toolu_ok']);
    expect(logger.lines.map((l) => [l.fields.tool_call_id, String(l.fields.error)])).toEqual([
      ['poison', expect.stringContaining('injected failure')],
      ['poison', expect.stringContaining('injected failure')],
    ]);
    const counters = store.counters();
    expect(counters).toEqual({ attempted: 5, persisted: 3, skipped_no_identity: 0, anomalous_value: 0, failed: 2, unknown_execution: 0, ledger_failed: 0 });
    expect(identityHolds(counters)).toBe(true);
  });

  it('frames without identity are skipped inside the host transaction as anywhere (AC-2)', async () => {
    const store = db.store({ clock: steppingClock() });
    const host = await begin();
    expect(await store.recordFrame(frame({ toolCallId: '' }), host.options)).toBe('skipped_no_identity');
    expect(await store.recordFrames([frame({ sessionId: null }), frame({ toolCallId: 'toolu_a' })], host.options)).toEqual([
      'skipped_no_identity',
      'persisted',
    ]);
    await host.commit();
    expect(await storedToolCallIds(db)).toEqual(['toolu_a']);
    expect(store.counters()).toMatchObject({ attempted: 3, skipped_no_identity: 2, persisted: 1, failed: 0 });
  });

  it('a client option that is not a usable client fails the frame without rejecting, and writes nothing', async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger }) as SubagentContextStore;
    const unreadable = Object.defineProperty({}, 'client', {
      get() {
        throw new Error('unreadable options');
      },
    }) as RecordOptions;
    // A value that is not a client of this dialect: failed with code invalid_client.
    await expect(store.recordFrame(frame({ toolCallId: 'a' }), { client: {} })).resolves.toBe('failed');
    await expect(store.recordFrames([frame({ toolCallId: 'b' }), frame({ toolCallId: 'c' })], { client: 42 })).resolves.toEqual(['failed', 'failed']);
    await expect(store.recordFrame(frame({ toolCallId: 'd' }), unreadable)).resolves.toBe('failed');
    expect(logger.lines.map((l) => l.fields.code ?? l.fields.error)).toEqual(['invalid_client', 'invalid_client', 'invalid_client', 'unreadable options']);
    // null is "no client": the store's own connection, its own transaction.
    await expect(store.recordFrame(frame({ toolCallId: 'e' }), { client: null })).resolves.toBe('persisted');
    expect(await storedToolCallIds(db)).toEqual(['e']);
    const counters = store.counters();
    expect(counters).toMatchObject({ attempted: 5, persisted: 1, failed: 4 });
    expect(identityHolds(counters)).toBe(true);
  });

  if (byDialect(dialect, { sqlite: false, postgres: true })) {
    it('a pg client outside any transaction fails the frame (the SAVEPOINT is refused) rather than silently autocommitting', async () => {
      const logger = recordingLogger();
      const store = db.store({ clock: steppingClock(), logger });
      const client = await db.pool!.connect();
      try {
        await expect(store.recordFrame(frame({ toolCallId: 'a' }), { client })).resolves.toBe('failed');
        await expect(store.recordFrames([frame({ toolCallId: 'b' })], { client })).resolves.toEqual(['failed']);
        // The host's pool itself is not a transaction either.
        await expect(store.recordFrame(frame({ toolCallId: 'c' }), { client: db.pool as unknown as pg.PoolClient })).resolves.toBe('failed');
        expect(logger.lines.map((l) => l.fields.code)).toEqual(['25P01', '25P01', '25P01']);
        // The client is left as it was: usable, and not in a transaction of the store's.
        expect((await client.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      } finally {
        client.release();
      }
      expect(await storedToolCallIds(db)).toEqual([]);
      expect(store.counters()).toMatchObject({ attempted: 3, persisted: 0, failed: 3 });
    });

    it("a host transaction that is already aborted fails the frames and stays the host's to roll back", async () => {
      const logger = recordingLogger();
      const store = db.store({ clock: steppingClock(), logger });
      const host = await begin();
      await expect(host.exec('SELECT 1 / 0')).rejects.toThrow();
      expect(await store.recordFrame(frame({ toolCallId: 'a' }), host.options)).toBe('failed');
      expect(await store.recordFrames([frame({ toolCallId: 'b' }), frame({ toolCallId: 'c' })], host.options)).toEqual(['failed', 'failed']);
      expect(logger.lines.map((l) => l.fields.code)).toEqual(['25P02', '25P02', '25P02']);
      await host.rollback();
      expect(await storedToolCallIds(db)).toEqual([]);
    });
  }

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it("better-sqlite3's db.transaction() around the calls: the writes join it and roll back with it", async () => {
      const conn = db.sqlite!;
      const store = db.store({ clock: steppingClock() });
      const outcomes: Promise<RecordOutcome | RecordOutcome[]>[] = [];
      const insert = conn.prepare(MESSAGE_SQL.replace(/\$(\d)/g, '?'));
      const hostWrite = (fail: boolean, frames: SubagentFrame[]) =>
        conn.transaction(() => {
          insert.run(`m-${frames[0].toolCallId}`, subagentMetadata({ toolCallId: frames[0].toolCallId!, subagent: {} }), '2026-07-25 17:20:00.000001+00:00');
          // The store's SQLite write runs synchronously inside the call, so inside the transaction.
          outcomes.push(store.recordFrame(frames[0]), store.recordFrames(frames.slice(1)));
          if (fail) throw new Error('host gives up');
        });
      hostWrite(false, [frame({ toolCallId: 'kept' }), frame({ toolCallId: 'kept_2' })])();
      expect(() => hostWrite(true, [frame({ toolCallId: 'gone' }), frame({ toolCallId: 'gone_2' })])()).toThrow('host gives up');
      expect(await Promise.all(outcomes)).toEqual(['persisted', ['persisted'], 'persisted', ['persisted']]);
      expect(await messages()).toEqual(['m-kept']);
      expect(await storedToolCallIds(db)).toEqual(['kept', 'kept_2']);
    });

    it('another better-sqlite3 handle as the client fails the frame: the store writes only on its own connection', async () => {
      const logger = recordingLogger();
      const store = db.store({ clock: steppingClock(), logger }) as SubagentContextStore<Database.Database>;
      const other = new Database(db.location);
      try {
        await expect(store.recordFrame(frame({ toolCallId: 'a' }), { client: other })).resolves.toBe('failed');
        await expect(store.recordFrames([frame({ toolCallId: 'b' })], { client: other })).resolves.toEqual(['failed']);
        // Its own connection outside a transaction: the store's own transaction, as without the option.
        await expect(store.recordFrames([frame({ toolCallId: 'c' })], { client: db.sqlite! })).resolves.toEqual(['persisted']);
      } finally {
        other.close();
      }
      expect(logger.lines.map((l) => l.fields.code)).toEqual(['invalid_client', 'invalid_client']);
      expect(await storedToolCallIds(db)).toEqual(['c']);
    });
  }
});
