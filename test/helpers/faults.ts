// Shared by the fault tests (test/faults-*.test.ts): what every fault must leave true, and the
// PostgreSQL machinery that puts a write in flight and then kills it, deterministically.
//
// A write is caught in flight by a real lock, not by timing: an admin session takes
// EXCLUSIVE on task_session_subagents (it conflicts with the upsert's ROW EXCLUSIVE and not
// with the ACCESS SHARE a Parse or a read needs), another admin session waits until the
// store's backends are seen blocked on it in pg_stat_activity, and only then acts on them.
// (Two sessions: pg_stat_activity is a snapshot per transaction, so the locking session
// would never see a backend start waiting.) Nothing sleeps a fixed time.
import type pg from 'pg';
import { expect } from 'vitest';
import type { RecordOutcome, WriterCounters } from '../../src/index.js';

/** AC-26's identity: every attempted frame has exactly one outcome. */
export function expectCounterIdentity(c: WriterCounters): void {
  expect(c.attempted, JSON.stringify(c)).toBe(c.persisted + c.skipped_no_identity + c.failed);
}

/**
 * Records what reaches the process's last-resort handlers while a fault test runs: an
 * 'error' event nobody listened for (an uncaught exception) or a rejection nobody handled.
 * Both must stay empty; vitest would also fail the run on them, this names the test.
 */
export function watchUnhandled(): { readonly errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onError = (err: unknown) => void errors.push(err);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    errors,
    stop() {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}

/** Polls `condition` until it holds; a deadline (not a fixed sleep) bounds the wait. */
export async function waitUntil(what: string, condition: () => Promise<boolean>, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (let pause = 2; !(await condition()); pause = Math.min(pause * 2, 50)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * The store pool's backends (by application_name) now waiting on a lock, or on another wait
 * event type ('Timeout' is a pg_sleep); `admin` must be outside a transaction.
 */
export async function blockedBackends(admin: pg.Client, applicationName: string, waitEventType = 'Lock'): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = $2 ORDER BY pid`, [
    applicationName,
    waitEventType,
  ]);
  return rows.map((r) => r.pid);
}

/**
 * Holds EXCLUSIVE on task_session_subagents from `locker` (in a transaction of its own) while
 * `fn` runs; the lock goes with the transaction, whatever `fn` does.
 */
export async function whileWritesAreBlocked<T>(locker: pg.Client, fn: () => Promise<T>): Promise<T> {
  await locker.query('BEGIN');
  try {
    await locker.query('LOCK TABLE task_session_subagents IN EXCLUSIVE MODE');
    return await fn();
  } finally {
    await locker.query('COMMIT');
  }
}

/**
 * Waits until at least `atLeast` of the store's backends are blocked, then terminates every
 * blocked one and waits until each has exited (pg_terminate_backend's timeout, PostgreSQL
 * 14+), so none can still commit once the lock goes. Returns how many it terminated.
 */
export async function terminateBlockedWrites(admin: pg.Client, applicationName: string, atLeast: number): Promise<number> {
  let pids: number[] = [];
  await waitUntil(`${atLeast} writes are blocked`, async () => (pids = await blockedBackends(admin, applicationName)).length >= atLeast);
  const { rows } = await admin.query<{ gone: boolean }>(`SELECT pg_terminate_backend(pid, 30000) AS gone FROM unnest($1::int[]) AS pid`, [pids]);
  expect(rows.map((r) => r.gone)).toEqual(pids.map(() => true));
  return pids.length;
}

/** Tally of outcomes, for messages. */
export function tally(outcomes: readonly RecordOutcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) t[o] = (t[o] ?? 0) + 1;
  return t;
}
