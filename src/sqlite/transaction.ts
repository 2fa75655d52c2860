// SQLite transactions: callback style, BEGIN IMMEDIATE so the write lock is taken up front
// (a deferred transaction that later upgrades can fail with SQLITE_BUSY despite the busy
// timeout). better-sqlite3's `timeout` option (default 5 s) is the busy timeout.
//
// withWriteScope is the live writer's: its own BEGIN IMMEDIATE transaction, or — when the host
// already holds a transaction on the connection (DESIGN §8 "Host transactions") — a SAVEPOINT
// inside it, leaving the outer transaction (and its COMMIT or ROLLBACK) to the host.
import type { Database } from 'better-sqlite3';

export function withImmediateTransaction<T>(db: Database, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/**
 * `fn` inside `SAVEPOINT name` within the host's open transaction: released on success; on
 * failure rolled back to and released, so the host's transaction goes on without it. If SQLite
 * already ended the whole transaction (RAISE(ROLLBACK), a full disk), there is nothing left to
 * roll back to, and the host finds its transaction gone, as it would have without the store.
 */
export function withSavepoint<T>(db: Database, name: string, fn: () => T): T {
  db.exec(`SAVEPOINT ${name}`);
  try {
    const result = fn();
    db.exec(`RELEASE ${name}`);
    return result;
  } catch (err) {
    if (db.inTransaction) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
    }
    throw err;
  }
}

/** The store's own write transaction, or a savepoint in the host's when one is open. */
export function withWriteScope<T>(db: Database, name: string, fn: () => T): T {
  return db.inTransaction ? withSavepoint(db, name, fn) : withImmediateTransaction(db, fn);
}
