/*
 * The staging table's end (schema/backfill/sqlite/001_backfill_stage.sql): dropped in the
 * transaction that writes the activation keys, so a finished store holds nothing of the backfill.
 */
/* @returns exec */
/* @name dropBackfillStage */
DROP TABLE IF EXISTS subagent_context_backfill_stage;
