/*
 * Whether the SQLite backfill's staging table exists (schema/backfill/sqlite): a resumed
 * backfill whose progress keys outlived the table (dropped by hand) stages again from the
 * start instead of reading an empty table as "no candidates".
 * The name compared COLLATE NOCASE, as SQLite resolves it (probe_store_tables.sql).
 */
/* @returns one */
/* @name probeBackfillStage */
SELECT count(*) AS "present!::bigint" FROM sqlite_master AS t WHERE t.type = 'table' AND t.name = 'subagent_context_backfill_stage' COLLATE NOCASE;
