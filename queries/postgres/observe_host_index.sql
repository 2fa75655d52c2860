/*
 * The optional host index (schema/host-index/postgres), as it resolves through search_path
 * like the statements that would use it: no row when absent; else whether it is the package's
 * (on task_session_messages, created_at alone, the prefilter as its predicate, not unique) and
 * whether it is valid (an interrupted CREATE INDEX CONCURRENTLY leaves an INVALID index, which
 * the planner never uses). src/postgres/host-index.ts decides from these. The predicate is
 * deparsed as strpos(metadata, …) on a text column and strpos((metadata)::text, …) on a jsonb,
 * json or varchar one: the same term, metadata read as text.
 */
/* @returns maybe-one */
/* @name observeHostIndex */
SELECT i.indisvalid AS "valid!",
       (i.indrelid = to_regclass('task_session_messages')
        AND NOT i.indisunique
        AND i.indnatts = 1
        AND i.indexprs IS NULL
        AND (SELECT a.attname FROM pg_attribute AS a WHERE a.attrelid = i.indrelid AND a.attnum = i.indkey[0]) = 'created_at'
        AND pg_get_expr(i.indpred, i.indrelid) IN ('(strpos(metadata, ''subagent_task''::text) > 0)',
                                                   '(strpos((metadata)::text, ''subagent_task''::text) > 0)')) AS "ours!",
       pg_get_indexdef(i.indexrelid) AS "definition!"
  FROM pg_index AS i
 WHERE i.indexrelid = to_regclass('idx_messages_subagent_candidates');
