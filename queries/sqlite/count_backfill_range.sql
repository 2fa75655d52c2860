/*
 * Under a phase-1 range's lock (src/migrations/backfill-stage.ts): the candidates in the temp
 * range table (schema/backfill/sqlite/002_backfill_range.sql), which must be what the read ahead
 * wrote there (a host transaction on the same connection rolled back would have emptied it).
 */
/* @returns one */
/* @name countBackfillRange */
SELECT count(*) AS "rows!::bigint" FROM temp.subagent_context_backfill_range;
