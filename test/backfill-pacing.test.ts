// The backfill's idle time between transactions (src/migrations/backfill-pacing.ts, pauseAfter;
// each dialect's pacing in src/<dialect>/migrations.ts). SQLite leaves its lock free after each
// transaction long enough for a host writer's busy handler to poll: twice the sleep a writer
// that began waiting during the transaction can be in when it ends, for a transaction under
// 53 ms (SQLite's default handler sleeps 1, 2, 5, 10, 15, 20, 25… ms), 50 ms up to 200 ms, when
// that handler polls at most 50 ms apart, and 120 ms after a longer one, when it may poll only
// every 100 ms (a writer then missed pause after pause: 845 ms behind chunks of under 300 ms,
// in the busy-host test on a loaded machine). A host's own pauseMs is kept as it is.
// PostgreSQL's host writes never wait for the migration lock: no pause at all.
import { describe, expect, it } from 'vitest';
import { firstWorkSizes, nextWorkSizes, pauseAfter, pauseAfterAhead } from '../src/migrations/backfill-pacing.js';
import { postgresBackfillPacing } from '../src/postgres/migrations.js';
import { sqliteBackfillPacing } from '../src/sqlite/migrations.js';

describe('the backfill pause between transactions', () => {
  it('SQLite by default: twice the busy handler’s sleep after a transaction under 53 ms, 50 ms up to 200 ms, 120 ms after a longer one', () => {
    const pacing = sqliteBackfillPacing(undefined);
    // Under 1 ms a waiting writer sleeps 1 ms; from 1, 2 ms; from 3, 5; from 8, 10; from 18, 15; from 33, 20.
    expect([0, 0.9, 1, 2.9, 3, 7.9, 8, 17.9, 18, 32.9, 33, 52.9].map((ms) => pauseAfter(ms, pacing))).toEqual([2, 2, 4, 4, 10, 10, 20, 20, 30, 30, 40, 40]);
    expect([53, 160, 199.9].map((ms) => pauseAfter(ms, pacing))).toEqual([50, 50, 50]);
    expect([200, 298, 5_000].map((ms) => pauseAfter(ms, pacing))).toEqual([120, 120, 120]);
  });

  it('SQLite in WAL mode by default: after a transaction whose work was computed ahead, the pause less the time that took (the next computation leaves the lock free too); a host pauseMs, or a rollback journal, the full pause', () => {
    const wal = sqliteBackfillPacing(undefined);
    expect([0, 30, 60].map((aheadMs) => pauseAfterAhead(2, aheadMs, wal))).toEqual([4, 0, 0]); // 4 ms after a 2 ms keep
    expect([0, 30, 60, 150].map((aheadMs) => pauseAfterAhead(250, aheadMs, wal))).toEqual([120, 90, 60, 0]);
    expect([0, 150].map((aheadMs) => pauseAfterAhead(250, aheadMs, sqliteBackfillPacing({ pauseMs: 30 })))).toEqual([30, 30]);
    // A rollback journal: a reader blocks a writer's commit, so the computation is no opening.
    expect([0, 150].map((aheadMs) => pauseAfterAhead(250, aheadMs, sqliteBackfillPacing(undefined, false)))).toEqual([120, 120]);
    expect([0, 150].map((aheadMs) => pauseAfterAhead(250, aheadMs, postgresBackfillPacing(0, undefined)))).toEqual([0, 0]);
  });

  it('SQLite with a host pauseMs: that pause after every transaction', () => {
    for (const pauseMs of [0, 30, 300]) expect([10, 250].map((ms) => pauseAfter(ms, sqliteBackfillPacing({ pauseMs })))).toEqual([pauseMs, pauseMs]);
  });

  it('PostgreSQL: none by default, whatever the transaction took; a host pauseMs as given', () => {
    expect([10, 250, 5_000].map((ms) => pauseAfter(ms, postgresBackfillPacing(0, undefined)))).toEqual([0, 0, 0]);
    expect([10, 250].map((ms) => pauseAfter(ms, postgresBackfillPacing(30_000, { pauseMs: 40 })))).toEqual([40, 40]);
  });
});

describe('the next transaction’s size (nextWorkSizes)', () => {
  const wal = sqliteBackfillPacing(undefined); // target 200 ms, aimed at 160; computation up to 8 targets
  const first = firstWorkSizes(16);
  const kept = { keptAhead: true, discarded: false };

  it('SQLite in WAL mode: kept work computed ahead sizes the next computation by the lock it held, bounded by eight targets of computing; work under the lock by the whole time', () => {
    // 100 sessions computed in 300 ms, kept in 40: the lock allows 400 (fourfold at most), the computation 426; the whole 47.
    expect(nextWorkSizes(first, { done: 100, aheadMs: 300, lockedMs: 40, ...kept }, wal, 20_000)).toEqual({ ahead: 400, locked: 47, byLock: true });
    // Kept in 80 ms: the lock allows 200; computed in 1,000 ms: 8 × 160 ms allows 128, which bounds it.
    expect(nextWorkSizes(first, { done: 100, aheadMs: 1_000, lockedMs: 80, ...kept }, wal, 20_000)).toEqual({ ahead: 128, locked: 14, byLock: true });
    // Never above the maximum, never below 1.
    expect(nextWorkSizes(first, { done: 100, aheadMs: 10, lockedMs: 1, ...kept }, wal, 250)).toEqual({ ahead: 250, locked: 250, byLock: true });
    expect(nextWorkSizes(first, { done: 1, aheadMs: 5_000, lockedMs: 5_000, ...kept }, wal, 250)).toEqual({ ahead: 1, locked: 1, byLock: true });
  });

  it('after a transaction that kept nothing computed ahead: both sizes by the whole time, as before; once a computation was discarded (stale), every later one too', () => {
    const sizes = { ahead: 400, locked: 47, byLock: true };
    // Nothing computed ahead (the host's transaction was open): the whole time, and computations still sized by the lock after.
    const under = nextWorkSizes(sizes, { done: 47, aheadMs: 0, lockedMs: 188, keptAhead: false, discarded: false }, wal, 20_000);
    expect(under).toEqual({ ahead: 40, locked: 40, byLock: true });
    expect(nextWorkSizes(under, { done: 40, aheadMs: 100, lockedMs: 10, ...kept }, wal, 20_000)).toEqual({ ahead: 160, locked: 58, byLock: true });
    // A computation discarded after 300 ms, done again under the lock in 188: the whole 488 ms, and by the whole time from then on.
    const stale = nextWorkSizes(sizes, { done: 47, aheadMs: 300, lockedMs: 188, keptAhead: false, discarded: true }, wal, 20_000);
    expect(stale).toEqual({ ahead: 15, locked: 15, byLock: false });
    expect(nextWorkSizes(stale, { done: 15, aheadMs: 100, lockedMs: 10, ...kept }, wal, 20_000)).toEqual({ ahead: 21, locked: 21, byLock: false });
  });

  it('without aheadTargets (a rollback journal, where a reader blocks a writer’s commit; PostgreSQL, which computes nothing ahead): both by the whole time, as before', () => {
    const journal = sqliteBackfillPacing(undefined, false);
    expect(journal.aheadTargets).toBeUndefined();
    expect(postgresBackfillPacing(0, undefined).aheadTargets).toBeUndefined();
    expect(nextWorkSizes(first, { done: 100, aheadMs: 300, lockedMs: 40, ...kept }, journal, 20_000)).toEqual({ ahead: 47, locked: 47, byLock: false });
    expect(nextWorkSizes(first, { done: 47, aheadMs: 0, lockedMs: 188, keptAhead: false, discarded: false }, journal, 20_000)).toEqual({
      ahead: 40,
      locked: 40,
      byLock: false,
    });
  });
});

describe("PostgreSQL's window walk: each window statement's own time limit", () => {
  it('four times the target, never above the role’s own limit nor PostgreSQL’s largest; none for a target that is no finite number', () => {
    expect(postgresBackfillPacing(0, undefined).windowLimitMs).toBe(2_000);
    expect(postgresBackfillPacing(1_000, undefined).windowLimitMs).toBe(800); // a fifth of the role's, times four
    expect(postgresBackfillPacing(1_000, { targetMs: 2_000 }).windowLimitMs).toBe(1_000); // a review: 8 s raised the role's 1 s
    expect(postgresBackfillPacing(0, { targetMs: 1e9 }).windowLimitMs).toBe(2_147_483_647); // a review: '4000000000ms' failed every boot
    expect(postgresBackfillPacing(0, { targetMs: Infinity }).windowLimitMs).toBeUndefined();
    expect(postgresBackfillPacing(0, { targetMs: NaN }).windowLimitMs).toBeUndefined();
    expect(postgresBackfillPacing(1_000, { targetMs: Infinity }).windowLimitMs).toBe(1_000);
    expect(sqliteBackfillPacing(undefined).windowLimitMs).toBeUndefined();
  });
});
