/*
 * The live shape of the package's tables, OBSERVED rather than inferred (AC-33b): the
 * migration runner decides every shape step from this row, re-read under the migration
 * lock, and writes subagent_context_execution_since only when AC-33's key-bearing clauses
 * 1–3 hold here — whether a rebuild fired this pass, an earlier boot did it, or the fresh
 * DDL created the table already amended.
 *   clause 1: execution_column_present AND execution_column_not_null
 *   clause 2: three_column_unique_present — a plain unique index on exactly
 *             (task_session_id, agent_execution_id, tool_call_id), in that order (the key's
 *             column order is part of its contract: session leads for AC-13's reads): three
 *             key columns, each at its position (pragma_index_info's seqno); an expression
 *             column counts as a column, so an expression index is not the key (as
 *             PostgreSQL's twin requires indexprs IS NULL)
 *   clause 3: NOT two_column_unique_present — no unique index, partial or not, whose column
 *             set is {task_session_id, tool_call_id} (SQLite backs an inline UNIQUE with
 *             an automatic index, so pragma_index_list sees constraints and indexes alike);
 *             named columns only, as PostgreSQL's twin reads them
 * Both are counted per index rather than compared as group_concat(... ORDER BY ...) text, which
 * needs SQLite 3.44; this file needs nothing newer than the package's 3.38 minimum.
 * missing_secondary_indexes counts the names schema/sqlite/003 creates that are absent
 * (AC-33 clause 4); subagent_columns the live column names; usage_tables_missing the tables
 * of schema/sqlite/004 (the usage ledger, issue 33) that are absent. PostgreSQL's probe has three more columns (int4 metric columns, the JSON
 * helper's trust) that mean nothing here; src/migrations/table-shape.ts's sqliteTableShape
 * gives them their SQLite meaning.
 * Table and index names compared COLLATE NOCASE, as SQLite resolves them (probe_store_tables.sql).
 */
/* @returns one */
/* @name observeSubagentTableShape */
SELECT
  EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'kandev_meta' COLLATE NOCASE) AS "kandev_meta_present!::bigint",
  EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_subagents' COLLATE NOCASE) AS "table_present!::bigint",
  EXISTS (SELECT 1 FROM pragma_table_info('task_session_subagents') AS c
           WHERE c.name = 'agent_execution_id') AS "execution_column_present!::bigint",
  EXISTS (SELECT 1 FROM pragma_table_info('task_session_subagents') AS c
           WHERE c.name = 'agent_execution_id' AND c."notnull" = 1) AS "execution_column_not_null!::bigint",
  EXISTS (SELECT 1 FROM pragma_index_list('task_session_subagents') AS il
           WHERE il."unique" = 1 AND il.partial = 0
             AND (SELECT count(*) = 3
                         AND sum(ii.seqno = 0 AND ii.name = 'task_session_id') = 1
                         AND sum(ii.seqno = 1 AND ii.name = 'agent_execution_id') = 1
                         AND sum(ii.seqno = 2 AND ii.name = 'tool_call_id') = 1
                    FROM pragma_index_info(il.name) AS ii)) AS "three_column_unique_present!::bigint",
  EXISTS (SELECT 1 FROM pragma_index_list('task_session_subagents') AS il
           WHERE il."unique" = 1
             AND (SELECT count(ii.name) = 2
                         AND sum(ii.name = 'task_session_id') = 1
                         AND sum(ii.name = 'tool_call_id') = 1
                    FROM pragma_index_info(il.name) AS ii)) AS "two_column_unique_present!::bigint",
  (SELECT count(*)
     FROM (SELECT 'idx_subagents_session_id' AS name UNION ALL SELECT 'idx_subagents_task_id'
           UNION ALL SELECT 'idx_subagents_turn_id' UNION ALL SELECT 'idx_subagents_observed_at') AS wanted
    WHERE wanted.name COLLATE NOCASE NOT IN (SELECT il.name FROM pragma_index_list('task_session_subagents') AS il)) AS "missing_secondary_indexes!::bigint",
  -- The live column names, as a JSON array: the add_subagent_columns step compares them with
  -- the fresh DDL's (generated/sqlite/schema.ts subagentColumns).
  (SELECT json_group_array(c.name) FROM pragma_table_info('task_session_subagents') AS c) AS "subagent_columns!::string",
  (SELECT count(*)
     FROM (SELECT 'task_session_subagent_usage' AS name UNION ALL SELECT 'task_session_parent_usage'
           UNION ALL SELECT 'subagent_context_import_progress') AS wanted
    WHERE wanted.name COLLATE NOCASE NOT IN (SELECT t.name FROM sqlite_schema AS t WHERE t.type = 'table')) AS "usage_tables_missing!::bigint";
