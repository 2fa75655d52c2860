/*
 * REPORT — the usage ledger (issue 33), when it has figures: tokens summed over every run,
 * per subagent type (the subagent row's) and model (the ledger's); then the parent sessions'
 * own usage per model, so the subagents' share of those sessions' tokens can be read beside
 * the spec's reported total_tokens. Whole store (no window or task scope yet). A figure no
 * response reported stays NULL in the ledger: the sum skips it, and `unreported` counts the
 * rows missing one, so a total is never read as complete when it is not.
 */
/* @returns many */
/* @name reportUsageLedger */
SELECT 'subagent' AS "side!::string",
       s.subagent_type AS "subagentType?::string",
       u.model AS "model!::string",
       COUNT(DISTINCT u.task_session_id || ' ' || u.tool_call_id) AS "runs!::bigint",
       SUM(u.requests) AS "requests?::bigint",
       SUM(COALESCE(u.input_tokens, 0) + COALESCE(u.output_tokens, 0) + COALESCE(u.cache_read_input_tokens, 0) + COALESCE(u.cache_creation_input_tokens, 0)) AS "tokens!::bigint",
       COUNT(*) - COUNT(u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens) AS "unreported!::bigint"
  FROM task_session_subagent_usage AS u
  LEFT JOIN task_session_subagents AS s
    ON s.task_session_id = u.task_session_id AND s.agent_execution_id = u.agent_execution_id AND s.tool_call_id = u.tool_call_id
 GROUP BY s.subagent_type, u.model
UNION ALL
SELECT 'parent', NULL, p.model,
       COUNT(DISTINCT p.task_session_id),
       SUM(p.requests),
       SUM(COALESCE(p.input_tokens, 0) + COALESCE(p.output_tokens, 0) + COALESCE(p.cache_read_input_tokens, 0) + COALESCE(p.cache_creation_input_tokens, 0)),
       COUNT(*) - COUNT(p.input_tokens + p.output_tokens + p.cache_read_input_tokens + p.cache_creation_input_tokens)
  FROM task_session_parent_usage AS p
 GROUP BY p.model
 ORDER BY 1 DESC, 2, 3;
