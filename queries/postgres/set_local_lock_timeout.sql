/*
 * Bounds this transaction's lock waits (PostgreSQL): `SET LOCAL lock_timeout`, written as
 * set_config(…, is_local => true) because SET cannot take a parameter. The migration runner
 * (src/postgres/migrations.ts) waits generously for the migration lock (a concurrent migrator
 * may be running the whole backfill), then bounds waits for table locks the host holds more
 * tightly, so a busy host table delays boot by seconds at most and the step is retried on the
 * next run. Local: COMMIT or ROLLBACK restores the connection's own setting.
 */
/* @returns one */
/* @name setLocalLockTimeout */
SELECT set_config('lock_timeout', :lockTimeout!, true) AS "lock_timeout!";
