// Inside a host's transaction (DESIGN §8), everything a frame writes is the host's to commit or
// roll back, its usage-ledger row included, and calls a host makes at once on one client
// still isolate each frame.
// - SQLite: the host's transaction is a synchronous db.transaction(), as docs/deploying.md
//   shows; it ends at the store's first await, so the ledger row must be written before
//   then (it used to follow one microtask later, autocommitted after a host's ROLLBACK).
// - PostgreSQL: Promise.all of several recordFrame calls on one `client` used to interleave
//   their savepoints (all named subagent_context_frame), so a bad frame failed good ones too.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RecordOptions, RecordOutcome, SubagentFrame, WriterCounters } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { failWritesOf, frame, storedToolCallIds } from './helpers/live-db.js';
import { readLedger } from './helpers/qwen-ledger.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const usage = { requests: 1, input_tokens: 10, output_tokens: 2 };
const withUsage = (toolCallId: string): SubagentFrame => frame({ toolCallId, toolStatus: 'completed', usage });
const identityHolds = (c: WriterCounters) => c.attempted === c.skipped_no_identity + c.persisted + c.failed;
const MESSAGE_SQL = `INSERT INTO task_session_messages (id, task_session_id, task_id, created_at) VALUES ('m1', 's1', 'task-1', '2026-07-25 17:20:00')`;

type Calls = (options: RecordOptions) => Promise<unknown>[];

/**
 * The host's transaction: its message row, then the store's `calls`, then COMMIT or ROLLBACK.
 * SQLite: the documented synchronous db.transaction(), the calls started inside it and awaited
 * after it ended; PostgreSQL: `{ client }` on a client that has BEGUN, the calls awaited before
 * the host ends the transaction.
 */
async function inHostTransaction(db: TestDb, end: 'commit' | 'rollback', calls: Calls): Promise<unknown[]> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    const conn = db.sqlite!;
    let started: Promise<unknown>[] = [];
    try {
      conn.transaction(() => {
        conn.exec(MESSAGE_SQL);
        started = calls({});
        if (end === 'rollback') throw new Error('the host fails after recording');
      })();
    } catch (err) {
      if (end === 'commit') throw err;
    }
    return Promise.all(started);
  }
  const client = await db.pool!.connect();
  try {
    await client.query('BEGIN');
    await client.query(MESSAGE_SQL);
    const outcomes = await Promise.all(calls({ client }));
    await client.query(end === 'commit' ? 'COMMIT' : 'ROLLBACK');
    return outcomes;
  } finally {
    client.release();
  }
}

describeBothDialects('write review: host transactions', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const ledgerIds = async () => (await readLedger(db)).map((r) => r.tool_call_id);
  const messages = async () => (await db.query('SELECT id FROM task_session_messages')).length;

  it("a host ROLLBACK takes the frames' ledger rows with their rows and its message (recordFrame, recordFrames)", async () => {
    const store = db.store({ clock: steppingClock() });
    const outcomes = await inHostTransaction(db, 'rollback', (options) => [
      store.recordFrame(withUsage('one'), options),
      store.recordFrames([withUsage('two'), withUsage('three')], options),
    ]);
    expect(outcomes).toEqual(['persisted', ['persisted', 'persisted']]);
    expect(await messages()).toBe(0);
    expect(await storedToolCallIds(db)).toEqual([]);
    expect(await ledgerIds()).toEqual([]); // SQLite used to keep all three, autocommitted after the ROLLBACK
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 3, failed: 0, ledger_failed: 0 });
  });

  it('a host COMMIT makes the rows and their ledger rows durable together; a failing ledger row is undone alone', async () => {
    await db.exec(
      byDialect(db.dialect, {
        sqlite: `CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage WHEN NEW.tool_call_id = 'poison' BEGIN SELECT RAISE(ABORT, 'injected'); END`,
        postgres: `CREATE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'injected'; END $f$;
          CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage FOR EACH ROW WHEN (NEW.tool_call_id = 'poison') EXECUTE FUNCTION inject_failure();`,
      }),
    );
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const outcomes = await inHostTransaction(db, 'commit', (options) => [
      store.recordFrame(withUsage('one'), options),
      store.recordFrames([withUsage('poison'), withUsage('two')], options),
    ]);
    expect(outcomes).toEqual(['persisted', ['persisted', 'persisted']]);
    expect(await messages()).toBe(1);
    expect(await storedToolCallIds(db)).toEqual(['one', 'poison', 'two']);
    expect(await ledgerIds()).toEqual(['one', 'two']);
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 3, failed: 0, ledger_failed: 1 });
    expect(logger.lines.map((l) => [l.msg, l.fields.tool_call_id])).toEqual([['subagent usage ledger write failed; the subagent row is written', 'poison']]);
  });

  it('calls made at once on one client: a rejected frame is undone alone, the host commits every other', async () => {
    await failWritesOf(db, 'poison');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const f = (toolCallId: string, sessionId = 's1') => frame({ toolCallId, sessionId });
    const outcomes = (await inHostTransaction(db, 'commit', (options) => [
      store.recordFrame(f('good1'), options),
      store.recordFrame(f('poison'), options),
      store.recordFrame(f('good2'), options),
      store.recordFrame(f('unsaved', 'no-such-session'), options),
      store.recordFrames([f('batch1'), f('poison'), f('batch2')], options),
      store.recordFrame(withUsage('good3'), options),
      store.recordFrame(f('good4'), options),
    ])) as (RecordOutcome | RecordOutcome[])[];
    expect(outcomes).toEqual(['persisted', 'failed', 'persisted', 'failed', ['persisted', 'failed', 'persisted'], 'persisted', 'persisted']);
    expect(await messages()).toBe(1);
    expect(await storedToolCallIds(db)).toEqual(['batch1', 'batch2', 'good1', 'good2', 'good3', 'good4']);
    expect(await ledgerIds()).toEqual(['good3']);
    expect(logger.lines.map((l) => l.fields.tool_call_id).sort()).toEqual(['poison', 'poison', 'unsaved']);
    const counters = store.counters();
    expect(counters).toMatchObject({ attempted: 9, persisted: 6, failed: 3, ledger_failed: 0 });
    expect(identityHolds(counters)).toBe(true);
  });
});
