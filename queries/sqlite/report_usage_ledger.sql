/*
 * REPORT — the usage ledger (issue 33) by subagent type and model: tokens summed over every
 * run in the report's scope, per subagent type (the subagent row's) and model (the ledger's);
 * then the parent sessions' own usage per model, so the subagents' share of those sessions'
 * tokens can be read beside the spec's reported total_tokens.
 *
 * Scope, the same as every report statement's: :taskIds (a JSON array, NULL = every task)
 * admits the sessions whose task_sessions.task_id is listed; the window admits the sessions
 * ACTIVE in it as report_cards.sql counts them (a subagent row observed or a message created
 * in it, the same exact utc9 comparison inside the bare-column bounds). A session in scope
 * counts with its whole ledger: the ledger holds no time per response, so a window selects
 * sessions, never part of a run. Without a window no probe runs.
 * Cost: one pass over the ledger's keys finds its sessions, each looked up by task_sessions'
 * primary key; a window adds, per ledger session, one probe of idx_subagents_session_id and
 * one of idx_messages_session_created; a run's subagent row (alias sub) is found by its key. No
 * scan of task_sessions, task_session_messages or task_session_subagents: the cost follows the
 * ledger, not the history (test/report-usage-ledger-plans.test.ts).
 *
 * A figure no response reported is NULL in the ledger: each figure's SUM skips it (NULL when
 * no row of the group reported it), `tokens` is the four figures' sum over the rows that
 * reported any (NULL when none did), and `unreported` counts the rows missing one of the
 * four, so a total is never read as complete when it is not. `runs` counts distinct
 * (session, execution, tool call): a run that used two models is in two groups.
 *
 * Overflow: every token SUM is taken over REAL (x * 1.0). SUM over integers raises "integer
 * overflow" past int64, and the live path stores any int64 a subagent reports, so one such
 * figure would fail every report of its scope; over REAL it cannot fail, and it is exact below
 * 2^53, which is all a figure keeps once read (src/count.ts), as report_tokens.sql's TOTAL();
 * the sums come back as REAL (numbers).
 * (SQLite's + turns to REAL on overflow by itself.) `runs` length-prefixes each id before
 * joining them: an id may hold the separator, and two runs must never read as one.
 *
 * Order: the subagents' side first, then by tokens (unknown last); ties by subagent_type, the
 * type not reported last, then model, each by its bytes (COLLATE BINARY), so both dialects list
 * the same groups first whatever the database's collation (the report shows the first ten).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen: session_active_in_window (its utc9 inside).
 */
/* @returns many */
/* @name reportUsageLedger */
WITH scoped AS MATERIALIZED (
  SELECT t.id
    FROM task_sessions AS t
   WHERE t.id IN (SELECT u.task_session_id FROM task_session_subagent_usage AS u
                  UNION
                  SELECT p.task_session_id FROM task_session_parent_usage AS p)
     AND (:taskIds IS NULL OR t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j))
     AND {{session_active_in_window(t.id)}}
)
SELECT 'subagent' AS "side!::string",
       sub.subagent_type AS "subagent_type?::string",
       u.model AS "model!::string",
       COUNT(DISTINCT length(u.task_session_id) || ' ' || u.task_session_id || ' ' || length(u.agent_execution_id) || ' ' || u.agent_execution_id || ' ' || u.tool_call_id) AS "runs!::bigint",
       SUM(u.requests * 1.0) AS "requests?::number",
       SUM(u.input_tokens * 1.0) AS "input_tokens?::number",
       SUM(u.output_tokens * 1.0) AS "output_tokens?::number",
       SUM(u.cache_read_input_tokens * 1.0) AS "cache_read_input_tokens?::number",
       SUM(u.cache_creation_input_tokens * 1.0) AS "cache_creation_input_tokens?::number",
       SUM(CASE WHEN COALESCE(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) IS NOT NULL
                THEN COALESCE(u.input_tokens, 0) * 1.0 + COALESCE(u.output_tokens, 0) + COALESCE(u.cache_read_input_tokens, 0) + COALESCE(u.cache_creation_input_tokens, 0) END) AS "tokens?::number",
       COUNT(*) - COUNT(u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens) AS "unreported!::bigint"
  FROM scoped AS sc
  JOIN task_session_subagent_usage AS u ON u.task_session_id = sc.id
  LEFT JOIN task_session_subagents AS sub
    ON sub.task_session_id = u.task_session_id AND sub.agent_execution_id = u.agent_execution_id AND sub.tool_call_id = u.tool_call_id
 GROUP BY sub.subagent_type, u.model
UNION ALL
SELECT 'parent', NULL, p.model,
       COUNT(DISTINCT p.task_session_id),
       SUM(p.requests * 1.0),
       SUM(p.input_tokens * 1.0),
       SUM(p.output_tokens * 1.0),
       SUM(p.cache_read_input_tokens * 1.0),
       SUM(p.cache_creation_input_tokens * 1.0),
       SUM(CASE WHEN COALESCE(p.input_tokens, p.output_tokens, p.cache_read_input_tokens, p.cache_creation_input_tokens) IS NOT NULL
                THEN COALESCE(p.input_tokens, 0) * 1.0 + COALESCE(p.output_tokens, 0) + COALESCE(p.cache_read_input_tokens, 0) + COALESCE(p.cache_creation_input_tokens, 0) END),
       COUNT(*) - COUNT(p.input_tokens + p.output_tokens + p.cache_read_input_tokens + p.cache_creation_input_tokens)
  FROM scoped AS sc
  JOIN task_session_parent_usage AS p ON p.task_session_id = sc.id
 GROUP BY p.model
 ORDER BY 1 DESC, 10 DESC NULLS LAST, 2 COLLATE BINARY NULLS LAST, 3 COLLATE BINARY;
