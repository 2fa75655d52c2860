/*
 * Fixes this transaction's DateStyle to ISO (PostgreSQL), before a statement that turns a host
 * instant into text the runner keeps or passes back: the window walk's edges
 * (next_backfill_window.sql: `lo`, and `below`, kept in kandev_meta as the next run's top) and
 * the mark's edge (read_backfill_through.sql). A timestamp's text follows the session's
 * DateStyle: under 'SQL, DMY' (a role's or a database's setting, or a pool's `options`) the
 * kept top read '05/12/2024 11:59:59.999999', which the next run, or another pooled connection,
 * under the default 'ISO, MDY' read as 12 May: the windows after it were skipped and the store
 * activated without their rows; '28/12/2024' failed every boot (22008; a review, 2026-12-07).
 * ISO text ('2024-12-05 11:59:59.999999', with its offset for a timestamptz column, 'infinity',
 * '… BC') reads back as the same instant under any DateStyle. Local: COMMIT or ROLLBACK restores
 * the connection's own setting, so the host's connections keep theirs. Written as
 * set_config(…, is_local => true), as set_local_work_mem.sql is.
 */
/* @returns one */
/* @name setLocalDateStyle */
SELECT pg_catalog.set_config('DateStyle', 'ISO, MDY', true) AS "date_style!";
