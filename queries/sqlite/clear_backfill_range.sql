/*
 * Empties the temp range table (schema/backfill/sqlite/002_backfill_range.sql) before a range
 * is read into it, and once its rows are kept.
 */
/* @returns exec */
/* @name clearBackfillRange */
DELETE FROM temp.subagent_context_backfill_range;
