// One body for a synchronous and an asynchronous transaction. A migration step's work is
// written once, as a generator, against the dialect's primitives (./migration-database.ts);
// where async code would write `await x` it writes `yield* awaited(x)`. The dialect then
// drives the generator its own way:
//   SQLite      runSync: each primitive returns a plain value, fed straight back. The whole
//               body runs inside BEGIN IMMEDIATE without ever yielding to the event loop,
//               which better-sqlite3 requires: an await there would let the host's own
//               statements on the same connection slip into (or be rolled back with) ours.
//   PostgreSQL  runAsync: each primitive returns a promise, awaited before it is fed back.
// Why a generator rather than a `T | Promise<T>` interface used directly: a step has several
// dependent calls (read a value, then write it), and chaining maybe-promises by hand would
// bury the order the spec fixes under callbacks; writing each body twice is what this replaces.
import { SubagentContextError } from '../errors.js';

/** A step body: yields the primitives' results (values or promises), returns T. */
export type Flow<T> = Generator<unknown, T, unknown>;

/** What a primitive returns: a value on SQLite, a promise of it on PostgreSQL. */
export type MaybePromise<T> = T | Promise<T>;

/** `yield* awaited(x)` is a flow's `await x`: the value x holds or resolves to. */
export function* awaited<T>(value: MaybePromise<T>): Flow<T> {
  return (yield value) as T;
}

/** Drives a flow whose primitives are synchronous; a promise is a programming error. */
export function runSync<T>(flow: Flow<T>): T {
  let next = flow.next();
  while (!next.done) {
    if (next.value instanceof Promise) {
      throw new SubagentContextError(
        'migration_primitive_not_synchronous',
        'a synchronous migration transaction was handed a promise; its primitives must return plain values',
      );
    }
    next = flow.next(next.value);
  }
  return next.value;
}

/** Drives a flow whose primitives return promises; a rejection is thrown into the flow. */
export async function runAsync<T>(flow: Flow<T>): Promise<T> {
  let next = flow.next();
  while (!next.done) {
    let value: unknown;
    try {
      value = await next.value;
    } catch (err) {
      next = flow.throw(err);
      continue;
    }
    next = flow.next(value);
  }
  return next.value;
}
