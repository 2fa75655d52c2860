// Failure behaviour of the live path (AC-26, AC-27) and of the batch entry point, with every
// failure raised by the real database (triggers), on both dialects: nothing rejects, every
// failed frame is counted and WARN-logged with its session and tool-call ids, and
// attempted = skipped_no_identity + persisted + failed holds exactly.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { WriterCounters } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { failWritesOf, frame, storedToolCallIds } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

const identityHolds = (c: WriterCounters) => c.attempted === c.skipped_no_identity + c.persisted + c.failed;

describeBothDialects('live failures', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('a database failure resolves failed, logs WARN with the session and tool-call ids, and counts (AC-27)', async () => {
    await failWritesOf(db, 'poison');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    // The qualifiers still count: the frame reached the write (DESIGN §2).
    const outcome = store.recordFrame(frame({ toolCallId: 'poison', executionId: '', payload: { total_tokens: -5 } }));
    await expect(outcome).resolves.toBe('failed');
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0].fields).toMatchObject({ session_id: 's1', tool_call_id: 'poison', dialect });
    expect(String(logger.lines[0].fields.error)).toContain('injected failure');
    expect(store.counters()).toEqual({
      attempted: 1,
      persisted: 0,
      skipped_no_identity: 0,
      anomalous_value: 1,
      failed: 1,
      unknown_execution: 1,
      ledger_failed: 0,
    });
    // The product path goes on: the next frame is written.
    expect(await store.recordFrame(frame({ toolCallId: 'fine' }))).toBe('persisted');
    expect(await storedToolCallIds(db)).toEqual(['fine']);
  });

  it('a throwing logger does not turn a failure into a rejection (AC-27)', async () => {
    await failWritesOf(db, 'poison');
    const store = db.store({
      clock: steppingClock(),
      logger: {
        warn: () => {
          throw new Error('logger down');
        },
      },
    });
    await expect(store.recordFrame(frame({ toolCallId: 'poison' }))).resolves.toBe('failed');
    await expect(store.recordFrames([frame({ toolCallId: 'poison' }), frame({ toolCallId: 'ok' })])).resolves.toEqual(['failed', 'persisted']);
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 1, failed: 2 });
  });

  it('a missing table fails every write without rejecting (the AC-33a degraded state)', async () => {
    const bare = await openTestDb(dialect); // host tables only: the package schema never applied
    try {
      await insertSession(bare, 's1', 'task-1');
      const logger = recordingLogger();
      const store = bare.store({ clock: steppingClock(), logger });
      await expect(store.recordFrame(frame())).resolves.toBe('failed');
      await expect(store.recordFrames([frame(), frame({ toolCallId: '' })])).resolves.toEqual(['failed', 'skipped_no_identity']);
      expect(store.counters()).toEqual({
        attempted: 3,
        persisted: 0,
        skipped_no_identity: 1,
        anomalous_value: 0,
        failed: 2,
        unknown_execution: 0,
        ledger_failed: 0,
      });
      expect(logger.lines.map((l) => l.fields.tool_call_id)).toEqual(['toolu_01', 'toolu_01']);
    } finally {
      await bare.close();
    }
  });

  it('counters keep attempted = skipped_no_identity + persisted + failed across every outcome (AC-26)', async () => {
    await failWritesOf(db, 'poison');
    const store = db.store({ clock: steppingClock(), logger: recordingLogger() });
    const frames = [
      frame({ toolCallId: 'a' }),
      frame({ toolCallId: 'a', payload: { total_tokens: 10 } }), // a merge is persisted too: writes, not rows
      frame({ toolCallId: '' }),
      frame({ sessionId: '', payload: { total_tokens: -1 } }), // skipped: qualifiers not counted
      frame({ toolCallId: 'poison', payload: { duration_ms: -1 } }),
      frame({ toolCallId: 'b', executionId: null, payload: { tool_use_count: -1, total_tokens: -1 } }),
      frame({ toolCallId: 'c', sessionId: 'no-such-session' }), // the foreign key rejects it
    ];
    for (const f of frames) await store.recordFrame(f);
    const c = store.counters();
    expect(c).toEqual({ attempted: 7, persisted: 3, skipped_no_identity: 2, anomalous_value: 2, failed: 2, unknown_execution: 1, ledger_failed: 0 });
    expect(identityHolds(c)).toBe(true);
    expect(await storedToolCallIds(db)).toEqual(['a', 'b']);
  });

  it('recordFrames: one failing frame never loses the others; outcomes and counters are per frame', async () => {
    await failWritesOf(db, 'poison');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const outcomes = await store.recordFrames([
      frame({ toolCallId: 'a', toolStatus: 'pending' }),
      frame({ toolCallId: 'poison' }),
      frame({ toolCallId: '' }),
      frame({ toolCallId: 'a', toolStatus: 'completed', payload: { model: 'm' } }), // merges in array order
      frame({ toolCallId: 'b', payload: { total_tokens: -1 } }),
      frame({ toolCallId: 'c', sessionId: 'no-such-session' }),
    ]);
    expect(outcomes).toEqual(['persisted', 'failed', 'skipped_no_identity', 'persisted', 'persisted', 'failed']);
    expect(store.counters()).toEqual({
      attempted: 6,
      persisted: 3,
      skipped_no_identity: 1,
      anomalous_value: 1,
      failed: 2,
      unknown_execution: 0,
      ledger_failed: 0,
    });
    expect(logger.lines.map((l) => [l.fields.session_id, l.fields.tool_call_id])).toEqual([
      ['s1', 'poison'],
      ['no-such-session', 'c'],
    ]);
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.tool_status, r.model, r.settled_at])).toEqual([
      ['a', 'completed', 'm', '2026-07-25T17:20:00.125456Z'], // third clock read: one per admitted frame, in order (the skipped frame reads none)
      ['b', null, null, null],
    ]);
  });

  it('recordFrames: when the transaction itself fails, every frame is failed, counted and logged', async () => {
    await failWritesOf(db, 'poison', 'transaction');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const outcomes = await store.recordFrames([
      frame({ toolCallId: 'a' }),
      frame({ toolCallId: 'poison' }),
      frame({ toolCallId: 'b' }),
      frame({ sessionId: null }),
    ]);
    expect(outcomes).toEqual(['failed', 'failed', 'failed', 'skipped_no_identity']);
    expect(store.counters()).toEqual({
      attempted: 4,
      persisted: 0,
      skipped_no_identity: 1,
      anomalous_value: 0,
      failed: 3,
      unknown_execution: 0,
      ledger_failed: 0,
    });
    expect(logger.lines.map((l) => l.fields.tool_call_id)).toEqual(['a', 'poison', 'b']);
    expect(await storedToolCallIds(db)).toEqual([]); // nothing of the failed transaction survives
    // And the store is usable afterwards.
    expect(await store.recordFrames([frame({ toolCallId: 'a' })])).toEqual(['persisted']);
    expect(await storedToolCallIds(db)).toEqual(['a']);
  });

  it('a clock that returns no usable instant fails the frame without writing or rejecting (DESIGN §2)', async () => {
    const readings: unknown[] = [-1n, 1_785_000_000_000_000_000, 253_402_300_800n * 1_000_000_000n, 'now', 1_785_000_000_000_000_000n];
    const logger = recordingLogger();
    const store = db.store({ clock: (() => readings.shift()) as () => bigint, logger });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await store.recordFrame(frame({ toolCallId: `t${i}` })));
    expect(outcomes).toEqual(['failed', 'failed', 'failed', 'failed', 'persisted']);
    expect(logger.lines.map((l) => l.fields.tool_call_id)).toEqual(['t0', 't1', 't2', 't3']);
    expect(await storedToolCallIds(db)).toEqual(['t4']);
    const throwing = db.store({
      clock: () => {
        throw new Error('clock down');
      },
      logger,
    });
    expect(await throwing.recordFrames([frame({ toolCallId: 'x' }), frame({ toolCallId: '' })])).toEqual(['failed', 'skipped_no_identity']);
    expect(identityHolds(store.counters()) && identityHolds(throwing.counters())).toBe(true);
  });

  it('recordFrames: an empty batch, a non-array and a sparse array never reject', async () => {
    const store = db.store({ clock: steppingClock() });
    expect(await store.recordFrames([])).toEqual([]);
    expect(await store.recordFrames(null as never)).toEqual([]);
    const sparse = new Array(3) as ReturnType<typeof frame>[];
    sparse[1] = frame();
    expect(await store.recordFrames(sparse)).toEqual(['skipped_no_identity', 'persisted', 'skipped_no_identity']);
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 1, skipped_no_identity: 2 });
  });
});
