// Faults (DESIGN §8, issue 11 item 7): PostgreSQL backends terminated while the store's
// writes are in flight (pg_terminate_backend from an admin session). The affected frames are
// 'failed' with a WARN and counted; nothing reaches the process unhandled (the pool is the
// host's and has an 'error' listener, as a host's would; the store's own code must not raise
// anything past it); the same store writes again afterwards; attempted = persisted +
// skipped_no_identity + failed. PostgreSQL only: SQLite has no server backends (its faults
// are test/faults-sqlite.test.ts).
//
// Writes are caught in flight by a table lock and killed only once seen blocked on it
// (test/helpers/faults.ts), so which frames fail is decided by the test, not by timing, and a
// killed write can never have committed: the rows must be exactly the 'persisted' frames.
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type RecordOutcome, type SubagentContextStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { expectCounterIdentity, tally, terminateBlockedWrites, waitUntil, watchUnhandled, whileWritesAreBlocked } from './helpers/faults.js';
import { frame, storedToolCallIds } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

/** The store pool's application_name: how the admin session finds the store's backends. */
const STORE_APP = 'subagent-context-faults-store';
/** SQLSTATE of a backend terminated by pg_terminate_backend or a fast shutdown. */
const ADMIN_SHUTDOWN = '57P01';

/** A WARN's fields name a terminated backend: its SQLSTATE, or node-postgres's words for a dead connection. */
function reportsTerminatedConnection(fields: Record<string, unknown>): boolean {
  return fields.code === ADMIN_SHUTDOWN || /Connection terminated|not queryable/.test(String(fields.error));
}

describe('faults: terminated backends [postgres]', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let admin: pg.Client;
  let locker: pg.Client;
  let unhandled: ReturnType<typeof watchUnhandled>;
  const poolErrors: Error[] = [];
  let logger: ReturnType<typeof recordingLogger>;
  let store: SubagentContextStore;

  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
    // The host's pool, with the host's 'error' listener: idle clients of a terminated backend
    // are reported there by node-postgres, as they would be in the host.
    pool = poolFor({ connectionString: db.location, max: 8, application_name: STORE_APP });
    poolErrors.length = 0;
    pool.on('error', (err) => void poolErrors.push(err));
    admin = clientFor(db.location);
    locker = clientFor(db.location);
    await Promise.all([admin.connect(), locker.connect()]);
    unhandled = watchUnhandled();
    logger = recordingLogger();
    store = createPostgresStore(pool, { clock: steppingClock(), logger });
  });
  afterEach(async () => {
    unhandled.stop();
    await Promise.all([admin.end(), locker.end(), pool.end()]);
    await db.close();
  });

  it('recordFrame: writes whose backends are terminated are failed + WARN (57P01); the store writes again', async () => {
    expect(await store.recordFrame(frame({ toolCallId: 'before' }))).toBe('persisted'); // the statement is prepared on a pooled connection
    const inFlight = 6;
    const outcomes = await whileWritesAreBlocked(locker, async () => {
      const pending = Array.from({ length: inFlight }, (_, i) => store.recordFrame(frame({ toolCallId: `killed-${i}` })));
      expect(await terminateBlockedWrites(admin, STORE_APP, inFlight)).toBe(inFlight);
      return Promise.all(pending);
    });
    expect(outcomes).toEqual(Array(inFlight).fill('failed'));
    expect(logger.lines.map((l) => [l.fields.session_id, l.fields.tool_call_id, l.fields.code]).sort()).toEqual(
      Array.from({ length: inFlight }, (_, i) => ['s1', `killed-${i}`, ADMIN_SHUTDOWN]),
    );

    // The same store, the same pool: the next writes go through on new connections.
    expect(await store.recordFrame(frame({ toolCallId: 'after-1' }))).toBe('persisted');
    expect(await store.recordFrames([frame({ toolCallId: 'after-2' }), frame({ toolCallId: 'after-3' })])).toEqual(['persisted', 'persisted']);
    expect(await storedToolCallIds(db)).toEqual(['after-1', 'after-2', 'after-3', 'before']);
    expect(store.counters()).toEqual({
      attempted: 10,
      persisted: 4,
      skipped_no_identity: 0,
      anomalous_value: 0,
      failed: inFlight,
      unknown_execution: 0,
      ledger_failed: 0,
    });
    expectCounterIdentity(store.counters());
    expect(logger.lines).toHaveLength(inFlight);
    expect(unhandled.errors).toEqual([]);
  });

  it('recordFrames: a batch whose backend is terminated, and then its savepoint retry too, fails whole; the store writes again', async () => {
    expect(await store.recordFrames([frame({ toolCallId: 'before' })])).toEqual(['persisted']);
    const batch = [frame({ toolCallId: 'b1' }), frame({ toolCallId: '' }), frame({ toolCallId: 'b2' }), frame({ toolCallId: 'b3', executionId: null })];
    const outcomes = await whileWritesAreBlocked(locker, async () => {
      const pending = store.recordFrames(batch);
      // The one-statement attempt first; the writer then redoes the batch frame by frame
      // (a savepoint each) on another connection, and that transaction is killed as well.
      expect(await terminateBlockedWrites(admin, STORE_APP, 1)).toBe(1);
      expect(await terminateBlockedWrites(admin, STORE_APP, 1)).toBe(1);
      return pending;
    });
    expect(outcomes).toEqual(['failed', 'skipped_no_identity', 'failed', 'failed']);
    expect(logger.lines.map((l) => l.fields.tool_call_id)).toEqual(['b1', 'b2', 'b3']);
    // The retry's failure is reported: the terminated statement's 57P01, or the dead
    // connection as the next statement on it (its ROLLBACK TO SAVEPOINT) met it.
    for (const line of logger.lines) expect(line.fields).toSatisfy(reportsTerminatedConnection);

    expect(await store.recordFrames([frame({ toolCallId: 'after-1' }), frame({ toolCallId: 'after-2' })])).toEqual(['persisted', 'persisted']);
    expect(await store.recordFrame(frame({ toolCallId: 'after-3' }))).toBe('persisted');
    expect(await storedToolCallIds(db)).toEqual(['after-1', 'after-2', 'after-3', 'before']);
    expect(store.counters()).toEqual({
      attempted: 8,
      persisted: 4,
      skipped_no_identity: 1,
      anomalous_value: 0,
      failed: 3,
      unknown_execution: 1,
      ledger_failed: 0,
    });
    expectCounterIdentity(store.counters());
    expect(unhandled.errors).toEqual([]);
  });

  it('a stream of recordFrame and recordFrames with backends terminated in five rounds: the rows are exactly the persisted frames', async () => {
    const ROUNDS = 5;
    // Eight writers on an eight-connection pool: six recordFrame streams and two recordFrames
    // streams (batches of five). Each writer holds at most one connection at a time, so of the
    // three or more backends a round kills, at least one runs a single frame, which has no
    // retry: every round fails at least one frame.
    const outcomes = new Map<string, RecordOutcome>();
    let running = true;
    const writer = async (w: number, batched: boolean) => {
      for (let i = 0; running; i++) {
        if (batched) {
          const frames = Array.from({ length: 5 }, (_, k) => frame({ toolCallId: `w${w}-${i}-${k}`, payload: { total_tokens: k } }));
          const results = await store.recordFrames(frames);
          frames.forEach((f, k) => outcomes.set(f.toolCallId!, results[k]));
        } else {
          const f = frame({ toolCallId: `w${w}-${i}`, toolStatus: i % 2 ? 'completed' : 'in_progress' });
          outcomes.set(f.toolCallId!, await store.recordFrame(f));
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w, w >= 6));
    let killed = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const persistedBefore = store.counters().persisted;
        await waitUntil('the stream makes progress between rounds', async () => store.counters().persisted >= persistedBefore + 20);
        killed += await whileWritesAreBlocked(locker, () => terminateBlockedWrites(admin, STORE_APP, 3));
      }
    } finally {
      running = false;
      await Promise.all(writers);
    }

    const c = store.counters();
    expect(killed).toBeGreaterThanOrEqual(3 * ROUNDS);
    expect(c.failed).toBeGreaterThanOrEqual(ROUNDS);
    expect(c.attempted).toBe(outcomes.size);
    expectCounterIdentity(c);
    expect(tally([...outcomes.values()])).toEqual({ persisted: c.persisted, failed: c.failed });
    expect(logger.lines).toHaveLength(c.failed);
    for (const line of logger.lines) {
      expect(outcomes.get(line.fields.tool_call_id as string)).toBe('failed');
      expect(line.fields).toSatisfy(reportsTerminatedConnection);
    }
    // A killed write never commits, and no persisted frame is missing.
    const persisted = [...outcomes]
      .filter(([, o]) => o === 'persisted')
      .map(([id]) => id)
      .sort();
    expect(await storedToolCallIds(db)).toEqual(persisted);
    // ... and the store still writes.
    expect(await store.recordFrame(frame({ toolCallId: 'after' }))).toBe('persisted');
    expect(unhandled.errors).toEqual([]);
  });
});
