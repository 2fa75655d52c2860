/*
 * The temp rows table's end (schema/backfill/sqlite/003_backfill_rows.sql): dropped from the
 * migrating connection when the walk ends, however it ends.
 */
/* @returns exec */
/* @name dropBackfillRows */
DROP TABLE IF EXISTS temp.subagent_context_backfill_rows;
