/*
 * Fixes this transaction's sort and hash budget (PostgreSQL): `SET LOCAL work_mem`, written as
 * set_config(…, is_local => true) because SET cannot take a parameter. The backfill's ranking
 * sorts every qualifying message's fields and its orphan check hashes task_sessions; under the
 * server's work_mem (4MB by default, often far more where a DBA tuned it for reports) both grow
 * the backend with the store until that budget is spent, and only then spill to temporary
 * files. The migration runner (src/postgres/migrations.ts) sets a small fixed budget before
 * the INSERT, so the backend's memory no longer follows the store or the server's setting;
 * on the benchmark stores it costs no time (BENCHMARKS.md, "Issue 20, fifth round").
 * Local: COMMIT or ROLLBACK restores the connection's own setting.
 */
/* @returns one */
/* @name setLocalWorkMem */
SELECT set_config('work_mem', :workMem!, true) AS "work_mem!";
