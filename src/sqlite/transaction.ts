// SQLite transactions, through better-sqlite3's own db.transaction(fn) rather than hand-written
// BEGIN/COMMIT. `.immediate()` takes the write lock up front (BEGIN IMMEDIATE: a deferred
// transaction that later upgrades can fail with SQLITE_BUSY despite the busy timeout;
// better-sqlite3's `timeout` option, default 5 s, is the busy timeout). When the connection is
// already inside a transaction, the library uses a SAVEPOINT instead, released on success and
// rolled back to and released on failure, so the host's transaction (and its COMMIT or
// ROLLBACK) stays the host's (DESIGN §8 "Host transactions"); if SQLite already ended the whole
// transaction (RAISE(ROLLBACK), a full disk) it rolls back nothing more. A function that returns
// a promise is refused (TypeError) and rolled back: every body here must run synchronously.
// The one exception is withAsyncTransaction (and its savepoint) below, for a connection one
// caller owns alone (the proxy's writer process), whose batch awaits the store's own writes.
import type { Database, Statement, Transaction } from 'better-sqlite3';
import { SubagentContextError } from '../errors.js';

type Scope = Transaction<(body: () => unknown) => unknown>;

/**
 * One transaction function per connection, made on first use and handed each body: creating
 * one per call costs about 40 µs (four wrapped functions and their properties), several
 * times the BEGIN … COMMIT it wraps, on the live write path.
 */
const scopes = new WeakMap<Database, Scope>();

function scopeOf(db: Database): Scope {
  let scope = scopes.get(db);
  if (!scope) {
    scope = db.transaction((body: () => unknown) => body());
    scopes.set(db, scope);
  }
  return scope;
}

/** The store's own write transaction, or a savepoint in the host's when one is open. */
export function inWriteScope<T>(db: Database, fn: () => T): T {
  return scopeOf(db).immediate(fn) as T;
}

/** `PRAGMA defer_foreign_keys` and `PRAGMA foreign_keys` per connection, prepared once: read on every write in a host's transaction. */
const pragmaReads = new WeakMap<Database, { defer: Statement; enforced: Statement }>();

/**
 * Whether the connection checks foreign keys only at COMMIT: the host set PRAGMA
 * defer_foreign_keys = ON (in its open transaction, or before one: the setting lasts until a
 * commit) with foreign keys enforced. Then a row of an unknown session would be written without
 * error, the frame read 'persisted' and the HOST's COMMIT fail on it, losing the host's own work
 * (a review, 2026-12); so the writer tests the key itself after the row, in its savepoint
 * (queries/sqlite/read_session_present.sql). The pragma is never switched off for the write:
 * that zeroes SQLite's count of the host's own deferred violations, and the host's COMMIT then
 * succeeded with orphan rows of its own (a second review, 2026-12).
 */
export function foreignKeysDeferred(db: Database): boolean {
  let reads = pragmaReads.get(db);
  if (!reads) {
    reads = { defer: db.prepare('PRAGMA defer_foreign_keys').pluck(), enforced: db.prepare('PRAGMA foreign_keys').pluck() };
    pragmaReads.set(db, reads);
  }
  return Number(reads.defer.get()) === 1 && Number(reads.enforced.get()) === 1;
}

/** A read snapshot (deferred BEGIN: no write lock, so a read-only connection can take it), or a savepoint in the host's transaction. */
export function inReadScope<T>(db: Database, fn: () => T): T {
  return scopeOf(db).deferred(fn) as T;
}

/**
 * A BEGIN IMMEDIATE transaction of its own, never a savepoint: the migration lock is the
 * database's write lock, which a savepoint inside the host's transaction would not take up
 * front (and the rebuild's foreign_keys pragma cannot change inside one). So it refuses to run
 * inside a transaction that is already open, as BEGIN IMMEDIATE itself would.
 */
export function withImmediateTransaction<T>(db: Database, fn: () => T): T {
  if (db.inTransaction) {
    throw new SubagentContextError(
      'transaction_open',
      'a transaction is already open on this connection; this runs in a BEGIN IMMEDIATE transaction of its own',
    );
  }
  return inWriteScope(db, fn);
}

/**
 * How withAsyncTransaction waits for the write lock: up to `totalMs` in all, in busy waits of
 * at most `sliceMs`, the event loop free between them. better-sqlite3's busy wait is
 * synchronous: one 5 s wait kept the proxy's writer from reading its channel (the proxy's
 * counts as it left) and from firing its background cap's timer (14.9 s on a 2 s cap, review of
 * 2026-12-05). In slices, a timer or a message waits one slice at most.
 */
export interface LockWait {
  totalMs: number;
  sliceMs: number;
}

/**
 * A BEGIN IMMEDIATE transaction whose body awaits: the proxy's writer, whose batch joins the
 * store's own writes (recordFrames) and so cannot run synchronously, and the importer. Only for
 * a connection its caller owns and uses one body at a time (one batch or unit in flight):
 * SQLite has no per-client transactions, so anything else run on the connection while the body
 * awaits would join it. Refuses to run inside an open transaction, as BEGIN IMMEDIATE would.
 * If SQLite ended the transaction itself meanwhile (RAISE(ROLLBACK), a full disk), nothing is
 * committed and it rejects. Without `lockWait`, BEGIN waits out the connection's busy timeout
 * in one synchronous wait.
 */
export async function withAsyncTransaction<T>(db: Database, fn: () => Promise<T>, lockWait?: LockWait): Promise<T> {
  if (db.inTransaction) {
    throw new SubagentContextError('transaction_open', 'a transaction is already open on this connection; this one must be its own');
  }
  if (lockWait) await beginInSlices(db, lockWait);
  else db.exec('BEGIN IMMEDIATE');
  try {
    const result = await fn();
    if (!db.inTransaction) throw new Error('the transaction was rolled back by SQLite');
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/** BEGIN IMMEDIATE, retried after SQLITE_BUSY until `totalMs` have passed; the connection's busy timeout is restored after. */
async function beginInSlices(db: Database, { totalMs, sliceMs }: LockWait): Promise<void> {
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  const taken = await takeLockInSlices(db, totalMs, sliceMs).then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  try {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  } catch (err) {
    // Only a closed connection refuses it; never leave the transaction begun here open.
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
  if (!taken.ok) throw taken.error;
}

async function takeLockInSlices(db: Database, totalMs: number, sliceMs: number): Promise<void> {
  const until = performance.now() + totalMs;
  for (;;) {
    db.pragma(`busy_timeout = ${Math.max(0, Math.min(sliceMs, Math.ceil(until - performance.now())))}`);
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if (!String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY') || performance.now() >= until) throw err;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * `fn` inside `SAVEPOINT name` of a withAsyncTransaction body (same precondition): released on
 * success; on failure rolled back to and released, so the transaction goes on, unless SQLite
 * has ended it (then there is nothing left to undo). Mirrors ../postgres/transaction.ts.
 */
export async function withAsyncSavepoint<T>(db: Database, name: string, fn: () => Promise<T>): Promise<T> {
  // Outside a transaction SAVEPOINT begins one and RELEASE commits it: after SQLite has ended the
  // caller's transaction (RAISE(ROLLBACK), a full disk), a retry of the body would commit on its
  // own, outside the transaction the caller still counts as one.
  if (!db.inTransaction) throw new Error('the transaction was rolled back by SQLite');
  db.exec(`SAVEPOINT ${name}`);
  try {
    const result = await fn();
    db.exec(`RELEASE ${name}`);
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
    throw err;
  }
}
