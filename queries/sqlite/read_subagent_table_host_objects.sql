/*
 * What a host added to task_session_subagents: columns that are not the package's, and
 * indexes and triggers on the table that the package's DDL does not create (an inline
 * constraint's automatic index has no SQL and is never listed). Read under the migration
 * lock right before the AC-33 rebuild (src/sqlite/migrations.ts), which would otherwise drop
 * them with the pre-amendment table (issue #16 item 6): an index or trigger is re-created
 * from its own SQL after the rows are copied; a host column cannot be carried through the
 * fixed column list of schema/sqlite/upgrade/002, so it refuses the rebuild. Triggers come in
 * creation order (sqlite_schema rowid), so re-created ones fire in the order they did.
 * An index's or trigger's tbl_name is its DDL's spelling (`ON TASK_SESSION_SUBAGENTS`), so names
 * are compared COLLATE NOCASE: such a trigger was not listed, and the rebuild dropped it silently
 * (a review, 2026-12).
 */
/* @returns many */
/* @name readSubagentTableHostObjects */
SELECT o.kind AS "kind!::string", o.name AS "name!::string", o.definition AS "definition?::string"
  FROM (SELECT 'column' AS kind, c.name AS name, NULL AS definition, c.cid AS position
          FROM pragma_table_xinfo('task_session_subagents') AS c
         WHERE c.name NOT IN ({{column_literals()}})
        UNION ALL
        SELECT s.type, s.name, s.sql, s.rowid
          FROM sqlite_schema AS s
         WHERE s.tbl_name = 'task_session_subagents' COLLATE NOCASE AND s.type IN ('index', 'trigger') AND s.sql IS NOT NULL
           AND s.name COLLATE NOCASE NOT IN ('idx_subagents_session_id', 'idx_subagents_task_id', 'idx_subagents_turn_id', 'idx_subagents_observed_at')
           -- The pre-amendment key itself, however the host declared it: AC-33 replaces it
           -- (the column-set test of observe_subagent_table_shape.sql's clause 3).
           AND NOT EXISTS (SELECT 1 FROM pragma_index_list('task_session_subagents') AS il
                            WHERE il.name = s.name AND il."unique" = 1
                              AND (SELECT count(ii.name) = 2
                                          AND sum(ii.name = 'task_session_id') = 1
                                          AND sum(ii.name = 'tool_call_id') = 1
                                     FROM pragma_index_info(il.name) AS ii))) AS o
 ORDER BY o.kind, o.position;
