// What both phases of the backfill share (./backfill-step.ts, ./backfill-stage.ts): the guard
// re-read in each transaction, the size of the next transaction's work, the pause between
// transactions, and progress figures read outside them.
import { ACTIVATION_KEYS } from '../activation-keys.js';
import { awaited, type Flow } from './flow.js';
import type { BackfillPacing, MigrationDatabase, MigrationPrimitives } from './migration-database.js';

/** AC-24d: the guard is BOTH keys, re-read under the lock in every transaction. */
export function* keysPresent(db: MigrationPrimitives): Flow<boolean> {
  const capturePresent = yield* awaited(db.keyPresent(ACTIVATION_KEYS.captureSince));
  const throughPresent = yield* awaited(db.keyPresent(ACTIVATION_KEYS.backfillThrough));
  return capturePresent && throughPresent;
}

/** The share of the time target a transaction is sized to: the next one's work varies around it. */
const AIM = 0.8;
/** A transaction grows at most this many times over the last one's size. */
const MAX_GROWTH = 4;

/**
 * The next transaction's size (sessions, or rowids in SQLite's phase 1), in proportion to the
 * last one's time: aimed at AIM of the time target, growing at most MAX_GROWTH times, within
 * [1, max]. Doubling while under half the target left transactions anywhere between half the
 * target and all of it, so SQLite's fixed pause after each was up to two fifths of the walk.
 */
export function nextChunkSize(current: number, elapsedMs: number, pacing: Pick<BackfillPacing, 'targetMs'>, max: number): number {
  const next = elapsedMs > 0 ? Math.floor((current * AIM * pacing.targetMs) / elapsedMs) : current * MAX_GROWTH;
  return Math.max(1, Math.min(max, current * MAX_GROWTH, next));
}

/**
 * A progress figure, read lock-free OUTSIDE the backfill's transactions: it can neither
 * lengthen one nor fail one (a role's statement_timeout cancelling a count leaves the figure at 0).
 */
export async function progressFigure(db: MigrationDatabase, read: (p: MigrationPrimitives) => Flow<number>): Promise<number> {
  try {
    return await db.unlocked(read);
  } catch {
    return 0;
  }
}

/**
 * PostgreSQL's query_canceled (57014), which a statement_timeout raises, and
 * transaction_timeout (25P04, PostgreSQL 17+), which also ends the connection (the pool then
 * discards it: src/postgres/transaction.ts). A transaction either cancelled is rolled back and
 * retried smaller, so a role's limit cannot stop the backfill at the same place on every boot.
 */
export function isTimeLimit(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return code === '57014' || code === '25P04';
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The idle time after a transaction whose work was computed ahead of it in `aheadMs`: the pause
 * less that time where the next computation, outside the lock, lets a host writer in too
 * (pauseOverlapsAhead), else the full pause. A keep that held the lock long (wide rows, a
 * synchronous=FULL commit) still leaves a writer its opening.
 */
export function pauseAfterAhead(lockedMs: number, aheadMs: number, pacing: Pick<BackfillPacing, 'pauseMs' | 'pauseSchedule' | 'pauseOverlapsAhead'>): number {
  const full = pauseAfter(lockedMs, pacing);
  return pacing.pauseOverlapsAhead ? Math.max(0, full - aheadMs) : full;
}

/** The idle time after a transaction that took `elapsedMs`: its step of the pacing's schedule, where it has one, else `pauseMs`. */
export function pauseAfter(elapsedMs: number, pacing: Pick<BackfillPacing, 'pauseMs' | 'pauseSchedule'>): number {
  const step = pacing.pauseSchedule?.find((s) => elapsedMs < s.belowMs);
  return step ? step.pauseMs : pacing.pauseMs;
}
