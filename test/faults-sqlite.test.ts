// Faults (DESIGN §8, issue 11 item 7) on SQLite: SQLITE_BUSY past the busy timeout, with
// another connection holding the write lock (WAL) or a shared lock that blocks the commit
// (rollback journal), and SQLITE_FULL (PRAGMA max_page_count at the file's current size).
// recordFrame and recordFrames in those states resolve 'failed' with a WARN carrying the
// result code, are counted, never reject, leave no transaction open on the host's
// connection, and the same store writes again once the lock is released or the limit raised;
// attempted = persisted + skipped_no_identity + failed throughout. SQLite only: the
// PostgreSQL faults are test/faults-postgres-*.test.ts.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubagentContextStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { expectCounterIdentity, watchUnhandled } from './helpers/faults.js';
import { frame, storedToolCallIds } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

/** A busy timeout short enough to pass quickly, long enough that SQLite really waits. */
const BUSY_TIMEOUT_MS = 25;

describe('faults [sqlite]', () => {
  let db: TestDb;
  let logger: ReturnType<typeof recordingLogger>;
  let store: SubagentContextStore;
  let unhandled: ReturnType<typeof watchUnhandled>;
  beforeEach(async () => {
    db = await openTestDb('sqlite', 'package');
    await insertSession(db, 's1', 'task-1');
    logger = recordingLogger();
    store = db.store({ clock: steppingClock(), logger });
    unhandled = watchUnhandled();
  });
  afterEach(async () => {
    unhandled.stop();
    await db.close();
  });

  const warnCodes = () => logger.lines.map((l) => [l.fields.tool_call_id, l.fields.code]);

  /** The busy state's writes fail; released, the same store writes again. */
  async function expectBusyThenRecovery(release: () => void): Promise<void> {
    try {
      expect(await store.recordFrame(frame({ toolCallId: 'busy-1' }))).toBe('failed');
      expect(await store.recordFrames([frame({ toolCallId: 'busy-2' }), frame({ toolCallId: '' }), frame({ toolCallId: 'busy-3' })])).toEqual([
        'failed',
        'skipped_no_identity',
        'failed',
      ]);
      expect(db.sqlite!.inTransaction).toBe(false); // nothing left open on the host's connection
      expect(warnCodes()).toEqual([
        ['busy-1', 'SQLITE_BUSY'],
        ['busy-2', 'SQLITE_BUSY'],
        ['busy-3', 'SQLITE_BUSY'],
      ]);
    } finally {
      release();
    }
    expect(await store.recordFrame(frame({ toolCallId: 'after-1' }))).toBe('persisted');
    expect(await store.recordFrames([frame({ toolCallId: 'after-2' }), frame({ toolCallId: 'after-3' })])).toEqual(['persisted', 'persisted']);
    expect(await storedToolCallIds(db)).toEqual(['after-1', 'after-2', 'after-3', 'before']);
    expect(store.counters()).toEqual({
      attempted: 8,
      persisted: 4,
      skipped_no_identity: 1,
      anomalous_value: 0,
      failed: 3,
      unknown_execution: 0,
      ledger_failed: 0,
    });
    expectCounterIdentity(store.counters());
    expect(logger.lines).toHaveLength(3);
    expect(unhandled.errors).toEqual([]);
  }

  it('SQLITE_BUSY (WAL): another connection holds the write lock past the busy timeout', async () => {
    db.sqlite!.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    expect(await store.recordFrame(frame({ toolCallId: 'before' }))).toBe('persisted');
    const holder = new Database(db.location);
    try {
      holder.exec('BEGIN IMMEDIATE'); // the write lock, held until released below
      await expectBusyThenRecovery(() => holder.exec('ROLLBACK'));
    } finally {
      holder.close();
    }
  });

  it('SQLITE_BUSY (rollback journal): a reader holds its shared lock, so no commit gets the exclusive lock in time', async () => {
    db.sqlite!.pragma('journal_mode = DELETE');
    db.sqlite!.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    expect(await store.recordFrame(frame({ toolCallId: 'before' }))).toBe('persisted');
    const reader = new Database(db.location);
    try {
      reader.exec('BEGIN');
      expect(reader.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get()).toEqual({ n: 1 }); // SHARED, held until COMMIT
      await expectBusyThenRecovery(() => reader.exec('COMMIT'));
    } finally {
      reader.close();
    }
  });

  it('SQLITE_FULL: inserts beyond PRAGMA max_page_count fail; raised, the same store writes again', async () => {
    expect(await store.recordFrame(frame({ toolCallId: 'before' }))).toBe('persisted');
    const sqlite = db.sqlite!;
    const pages = Number(sqlite.pragma('page_count', { simple: true }));
    expect(Number(sqlite.pragma('freelist_count', { simple: true }))).toBe(0); // no free page to reuse
    sqlite.pragma(`max_page_count = ${pages}`);
    // A description spanning several pages needs new (overflow) pages whatever else is free.
    const big = (toolCallId: string) => frame({ toolCallId, payload: { description: 'd'.repeat(5 * 4096) } });

    expect(await store.recordFrame(big('full-1'))).toBe('failed');
    const batch = await store.recordFrames([frame({ toolCallId: 'small' }), big('full-2'), frame({ toolCallId: '' })]);
    // SQLite may undo just the failing statement or the whole transaction on SQLITE_FULL:
    // either way each outcome must say what the database holds.
    expect(batch.slice(1)).toEqual(['failed', 'skipped_no_identity']);
    expect(batch[0]).toBe((await storedToolCallIds(db)).includes('small') ? 'persisted' : 'failed');
    expect(sqlite.inTransaction).toBe(false);
    const failedIds = logger.lines.map((l) => l.fields.tool_call_id);
    expect(failedIds).toEqual(batch[0] === 'failed' ? ['full-1', 'small', 'full-2'] : ['full-1', 'full-2']);
    // The cause each WARN carries: the full file, or (for a frame undone with the transaction) the same error.
    for (const line of logger.lines) expect(line.fields.code).toBe('SQLITE_FULL');

    sqlite.pragma('max_page_count = 1073741823');
    expect(await store.recordFrame(big('after-1'))).toBe('persisted');
    expect(await store.recordFrames([big('after-2'), frame({ toolCallId: 'after-3' })])).toEqual(['persisted', 'persisted']);
    const stored = await storedToolCallIds(db);
    expect(stored.filter((id) => id !== 'small')).toEqual(['after-1', 'after-2', 'after-3', 'before']);
    const [{ n }] = await db.query<{ n: number }>(`SELECT length(description) AS n FROM task_session_subagents WHERE tool_call_id = 'after-2'`);
    expect(n).toBe(5 * 4096);
    const c = store.counters();
    expect(c).toMatchObject({ attempted: 8, skipped_no_identity: 1, failed: failedIds.length, persisted: 7 - failedIds.length });
    expectCounterIdentity(c);
    expect(unhandled.errors).toEqual([]);
  });
});
