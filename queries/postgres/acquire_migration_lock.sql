/*
 * The migration lock (PostgreSQL): a transaction-scoped advisory lock, so two processes or
 * pools running runMigrations() at once take turns step by step, each re-reading the live
 * shape and the activation keys under the lock, and the backfill happens once. It is
 * released by COMMIT or ROLLBACK, so a failing step can never leave it held. The runner
 * takes it on a dedicated client after set_local_lock_timeout.sql, so a wait is bounded.
 * PostgreSQL's alone: SQLite's BEGIN IMMEDIATE is its migration lock.
 * The key is the first 8 bytes of sha256('subagent-context') as a signed int64 — fixed
 * here rather than computed (md5 is unavailable on FIPS builds) — and is what an operator
 * sees in pg_locks (classid 622557703, objid 1020214486 as the two 32-bit halves).
 * The function returns void, which pgtyped cannot type (it declared `undefined | null`;
 * node-postgres returns ''), so it is called in FROM and the row reports `locked = true`.
 */
/* @returns one */
/* @name acquireMigrationLock */
SELECT true AS "locked!" FROM pg_advisory_xact_lock(2673864975278095574) AS lock;
