// Writes a writer finished inside its call (better-sqlite3 is synchronous), as promises whose
// values are read without awaiting them: the store goes on in the same synchronous scope (a
// frame's ledger row inside the host's db.transaction()), and answers such a frame with a
// settled outcome that the ACP recorder returns as it is, with nothing to chain.
import type { RecordOutcome } from './types.js';

/** Each settled write's outcome, by its promise. */
const settledWrites = new WeakMap<Promise<unknown>, SettledOutcome<unknown>>();

/** What a writer's finished call came to: its value, or the error it failed with. */
export type SettledOutcome<T> = { value: T } | { error: unknown };

/** A fulfilled promise of `value` that the store reads without awaiting: a writer's finished write. */
export function settledWrite<T>(value: T): Promise<T> {
  const promise = Promise.resolve(value);
  settledWrites.set(promise, { value });
  return promise;
}

/**
 * A rejected promise of `error` that the store reads without awaiting: a write that failed in
 * the call. Marked handled (a no-op catch), since the store reads it instead of awaiting it.
 */
export function settledFailure(error: unknown): Promise<never> {
  const promise = Promise.reject(error as Error);
  promise.catch(() => undefined);
  settledWrites.set(promise, { error });
  return promise;
}

/** A settled write's outcome, read without awaiting it (one lookup); undefined for any other promise, which is awaited. */
export const settledOutcome = <T>(write: Promise<T>): SettledOutcome<T> | undefined => settledWrites.get(write) as SettledOutcome<T> | undefined;

/** An outcome's value; a failure throws its error here, as awaiting the write would. */
export function valueOf<T>(outcome: SettledOutcome<T>): T {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/**
 * Whether a store's answer is a settled write that succeeded: its frame's work was done inside
 * the call (SQLite). A settled failure or any other value: false (never handed back as is).
 */
export const isSettledWrite = (value: unknown): boolean => {
  const outcome = typeof value === 'object' && value !== null ? settledWrites.get(value as Promise<unknown>) : undefined;
  return outcome !== undefined && 'value' in outcome;
};

/**
 * Each outcome as one shared settled write: a frame finished inside recordFrame's call (SQLite,
 * or a frame refused before any write) returns one of these, no promise of its own.
 */
export const SETTLED_OUTCOMES: { readonly [O in RecordOutcome]: Promise<O> } = {
  persisted: settledWrite('persisted'),
  skipped_no_identity: settledWrite('skipped_no_identity'),
  failed: settledWrite('failed'),
};
