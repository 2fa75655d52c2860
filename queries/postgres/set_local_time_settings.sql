/*
 * Fixes this transaction's DateStyle to ISO and TimeZone to UTC (PostgreSQL), before the
 * statements that read the host's created_at as an instant or turn one into text the runner
 * keeps or passes back: the window walk's edges (next_backfill_window.sql: `lo`, and `below`,
 * kept in kandev_meta as the next run's top), the mark (read_backfill_through.sql), each window's
 * and chunk's rows (backfill_window_contexts.sql, backfill_subagent_contexts.sql) and health's
 * anti-joins (count_shortfall_since_capture.sql, count_excess_since_capture.sql), and the report's
 * window (report_*.sql, src/postgres/report.ts).
 * - DateStyle: a timestamp's text follows it. Under 'SQL, DMY' (a role's or a database's
 *   setting, or a pool's `options`) the kept top read '05/12/2024 11:59:59.999999', which the
 *   next run, or another pooled connection, under the default 'ISO, MDY' read as 12 May: the
 *   windows after it were skipped and the store activated without their rows; '28/12/2024'
 *   failed every boot (22008). ISO text ('2024-12-05 11:59:59.999999', with its offset for a
 *   timestamptz column, 'infinity', '… BC') reads back as the same instant under any DateStyle.
 * - TimeZone: the package's columns and keys are TIMESTAMP holding UTC. A host whose created_at
 *   is timestamptz had it converted in the session's zone: under America/New_York a message of
 *   10:00Z was backfilled as observed at 06:00, the mark named 07:00Z for 11:00Z, and health
 *   compared its UTC bound in that zone, so a message the writer missed an hour after activation
 *   was outside its window: "nothing since activation", shortfall 0. In UTC the conversion is the
 *   instant itself; a TIMESTAMP column is read as it is either way.
 * Both found by reviews (2026-12-07). Local: COMMIT or ROLLBACK restores the connection's own
 * settings, so the host's connections keep theirs. set_config(…, is_local => true), as
 * set_local_work_mem.sql.
 */
/* @returns one */
/* @name setLocalTimeSettings */
SELECT pg_catalog.set_config('DateStyle', 'ISO, MDY', true) AS "date_style!",
       pg_catalog.set_config('TimeZone', 'UTC', true) AS "time_zone!";
