/*
 * What tells the SQLite backfill that nothing but itself touched the database between two of
 * its own transactions or reads (src/sqlite/stage-freshness.ts), read as each begins and ends:
 * - total_changes(): rows this connection changed (a host sharing it, the store's live writes);
 * - the main schema version: VACUUM (which may renumber rowids) and any DDL change it;
 * - the triggers on the tables the backfill itself writes, in main or temp: one of them fires
 *   inside the backfill's own transaction, where its writes would pass for the backfill's.
 * Another connection's commits are data_version's, which the chunk statement reads itself
 * (backfill_subagent_contexts.sql).
 * A trigger's tbl_name is its DDL's spelling (`ON KANDEV_META`), so it is compared COLLATE
 * NOCASE: such a trigger was not counted, and the chunks ranked from stale columns (a review, 2026-12).
 */
/* @returns one */
/* @name readStageFreshnessMarks */
SELECT total_changes() AS "changes!::bigint",
       (SELECT v.schema_version FROM main.pragma_schema_version AS v) AS "schema!::bigint",
       (SELECT count(*) FROM sqlite_schema AS o
         WHERE o.type = 'trigger'
           AND o.tbl_name COLLATE NOCASE IN ('kandev_meta', 'task_session_subagents', 'subagent_context_backfill_stage'))
       + (SELECT count(*) FROM sqlite_temp_schema AS o
           WHERE o.type = 'trigger'
             AND o.tbl_name COLLATE NOCASE IN ('kandev_meta', 'task_session_subagents', 'subagent_context_backfill_stage',
                                'subagent_context_backfill_range', 'subagent_context_backfill_rows'))
         AS "writeTriggers!::bigint";
