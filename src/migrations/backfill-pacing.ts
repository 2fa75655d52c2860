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
 * The sizes of the next transaction's work (sessions, or rowids in SQLite's phase 1): `ahead`
 * when it is computed ahead, outside the lock, and only kept under it; `locked` when it is
 * done under the lock (nothing computed ahead, or what was is stale and done again there).
 * `byLock`: work computed ahead may still be sized by the lock alone (nextWorkSizes).
 */
export interface WorkSizes {
  readonly ahead: number;
  readonly locked: number;
  readonly byLock: boolean;
}

/** A walk's first transaction: `size` either way. */
export function firstWorkSizes(size: number): WorkSizes {
  return { ahead: size, locked: size, byLock: true };
}

/**
 * What the last transaction did: `done` units, `aheadMs` computing ahead (0 if nothing was),
 * `lockedMs` under the lock; whether it kept the work computed ahead, or `discarded` it (stale).
 */
export interface LastWork {
  readonly done: number;
  readonly aheadMs: number;
  readonly lockedMs: number;
  readonly keptAhead: boolean;
  readonly discarded: boolean;
}

/**
 * The next transaction's sizes. A transaction that kept work computed ahead held the lock only
 * to keep it: where the computation lets a host writer in (pacing.aheadTargets), the next
 * computation is sized by the lock this one held, and bounded to aheadTargets times the target,
 * while work to be done under the lock is sized by the whole time this one took, computation
 * included, so a stale computation done again under the lock holds it about the target.
 * Measured on SQLite's dense-1m store, where each commit rewrote the package table's randomly
 * keyed index pages and checkpointed: the walk took 22 transactions sized by their whole time
 * and about 11 sized by the lock, a tenth less time (BENCHMARKS.md). Every other case is the rule
 * from before: both sizes by the whole time. That is, without aheadTargets (a rollback journal,
 * PostgreSQL); after a transaction that kept nothing computed ahead; and for the rest of the
 * walk once a computation was discarded: the host is changing what the walk computes ahead (a
 * busy host deleting and adding sessions), and a larger computation would go stale more often.
 */
export function nextWorkSizes(sizes: WorkSizes, last: LastWork, pacing: Pick<BackfillPacing, 'targetMs' | 'aheadTargets'>, max: number): WorkSizes {
  const byLock = sizes.byLock && !last.discarded && pacing.aheadTargets !== undefined;
  const whole = nextChunkSize(last.done, last.aheadMs + last.lockedMs, pacing, max);
  if (!byLock || !last.keptAhead || pacing.aheadTargets === undefined) return { ahead: whole, locked: whole, byLock };
  const lockSized = nextChunkSize(last.done, last.lockedMs, pacing, max);
  const computationSized = nextChunkSize(last.done, last.aheadMs, { targetMs: pacing.aheadTargets * pacing.targetMs }, max);
  return { ahead: Math.min(lockSized, computationSized), locked: whole, byLock };
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
