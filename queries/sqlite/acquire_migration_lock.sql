/*
 * The migration lock (SQLite): SQLite has no advisory locks and needs none. Every migration
 * step runs inside BEGIN IMMEDIATE (src/sqlite/transaction.ts), which takes the database's
 * single write lock up front, waiting up to the connection's busy timeout, so two
 * processes' steps serialize and each re-reads the shape and the keys under the lock. This
 * twin exists because both dialects ship the same query set (codegen and
 * test/layout.test.ts require it); the SQLite runner does not call it.
 */
/* @name acquireMigrationLock */
SELECT 1 AS "locked!::bigint";
