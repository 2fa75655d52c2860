/*
 * The temp range table's end (schema/backfill/sqlite/002_backfill_range.sql): dropped from the
 * migrating connection when phase 1 ends, however it ends.
 */
/* @returns exec */
/* @name dropBackfillRange */
DROP TABLE IF EXISTS temp.subagent_context_backfill_range;
