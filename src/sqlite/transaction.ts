// SQLite transactions: callback style, BEGIN IMMEDIATE so the write lock is taken up front
// (a deferred transaction that later upgrades can fail with SQLITE_BUSY despite the busy
// timeout). better-sqlite3's `timeout` option (default 5 s) is the busy timeout.
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
