/*
 * Empties the temp rows table (schema/backfill/sqlite/003_backfill_rows.sql) before a chunk's
 * rows are computed into it, and once they are kept.
 */
/* @returns exec */
/* @name clearBackfillRows */
DELETE FROM temp.subagent_context_backfill_rows;
