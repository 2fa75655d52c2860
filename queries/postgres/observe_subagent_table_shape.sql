/*
 * The live shape of the package's tables, OBSERVED rather than inferred (AC-33b): the
 * migration runner decides every shape step from this row, re-read under the migration
 * lock, and writes subagent_context_execution_since only when AC-33's key-bearing clauses
 * 1–3 hold here — whether an upgrade ran this pass, an earlier boot did it, or the fresh
 * DDL created the table already amended.
 *   clause 1: execution_column_present AND execution_column_not_null
 *   clause 2: three_column_unique_present — a valid, non-partial unique index (a UNIQUE
 *             constraint is backed by one) on exactly (task_session_id, agent_execution_id,
 *             tool_call_id), in that order (session leads for AC-13's reads)
 *   clause 3: NOT two_column_unique_present — no unique index or constraint whose column
 *             set is {task_session_id, tool_call_id}; looked up by columns, never by name
 *             (auto-generated names truncate at 63 bytes)
 * missing_secondary_indexes counts the names schema/postgres/003 creates that are absent
 * on the table (AC-33 clause 4); narrow_metric_columns counts metric columns an earlier
 * host build declared INTEGER (int4), which DESIGN §3 widens to BIGINT; usage_tables_missing
 * the tables of schema/postgres/005 (the usage ledger, issue 33) that are absent.
 * The JSON helper's trust is judged apart, by observe_json_helper.sql: health needs that
 * answer alone, and it costs a fraction of this statement's planning.
 * Names resolve through search_path, exactly as the host's unqualified statements do.
 */
/* @returns one */
/* @name observeSubagentTableShape */
WITH rel AS (
  SELECT to_regclass('task_session_subagents') AS oid
), unique_index AS (
  SELECT i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL AS plain,
         ARRAY(SELECT a.attname::text
                 FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE k.ord <= i.indnkeyatts
                ORDER BY k.ord) AS cols
    FROM pg_index AS i
    JOIN rel ON i.indrelid = rel.oid
   WHERE i.indisunique
)
SELECT
  to_regclass('kandev_meta') IS NOT NULL AS "kandev_meta_present!",
  (SELECT rel.oid FROM rel) IS NOT NULL AS "table_present!",
  EXISTS (SELECT 1 FROM pg_attribute AS a JOIN rel ON a.attrelid = rel.oid
           WHERE a.attname = 'agent_execution_id' AND NOT a.attisdropped) AS "execution_column_present!",
  EXISTS (SELECT 1 FROM pg_attribute AS a JOIN rel ON a.attrelid = rel.oid
           WHERE a.attname = 'agent_execution_id' AND NOT a.attisdropped AND a.attnotnull) AS "execution_column_not_null!",
  EXISTS (SELECT 1 FROM unique_index AS u
           WHERE u.plain AND u.cols = ARRAY['task_session_id', 'agent_execution_id', 'tool_call_id']) AS "three_column_unique_present!",
  EXISTS (SELECT 1 FROM unique_index AS u
           WHERE u.cols @> ARRAY['task_session_id', 'tool_call_id']
             AND u.cols <@ ARRAY['task_session_id', 'tool_call_id']) AS "two_column_unique_present!",
  (SELECT count(*)::int
     FROM unnest(ARRAY['idx_subagents_session_id', 'idx_subagents_task_id',
                       'idx_subagents_turn_id', 'idx_subagents_observed_at']) AS wanted(name)
    WHERE NOT EXISTS (SELECT 1 FROM pg_index AS i
                        JOIN rel ON i.indrelid = rel.oid
                        JOIN pg_class AS c ON c.oid = i.indexrelid
                       WHERE c.relname = wanted.name)) AS "missing_secondary_indexes!",
  -- The live column names, as a JSON array: the add_subagent_columns step compares them with
  -- the fresh DDL's (generated/postgres/schema.ts subagentColumns).
  (SELECT COALESCE(json_agg(a.attname::text ORDER BY a.attnum), '[]'::json)::text
     FROM pg_attribute AS a JOIN rel ON a.attrelid = rel.oid
    WHERE a.attnum > 0 AND NOT a.attisdropped) AS "subagent_columns!",
  (SELECT count(*)::int FROM pg_attribute AS a JOIN rel ON a.attrelid = rel.oid
    WHERE a.attname IN ('total_tokens', 'tool_use_count', 'duration_ms') AND NOT a.attisdropped
      AND a.atttypid IN ('int2'::regtype, 'int4'::regtype)) AS "narrow_metric_columns!",
  (SELECT count(*)::int
     FROM unnest(ARRAY['task_session_subagent_usage', 'task_session_parent_usage',
                       'subagent_context_import_progress']) AS wanted(name)
    WHERE to_regclass(wanted.name) IS NULL) AS "usage_tables_missing!";
