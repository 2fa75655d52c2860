/*
 * REPORT — the usage ledger (issue 33) by subagent type and model: tokens summed over every
 * run in the report's scope, per subagent type (the subagent row's) and model (the ledger's);
 * then the parent sessions' own usage per model, so the subagents' share of those sessions'
 * tokens can be read beside the spec's reported total_tokens.
 *
 * Scope, the same as every report statement's: :taskIds (a JSON array, NULL = every task)
 * admits the sessions whose task_sessions.task_id is listed; the window admits the sessions
 * ACTIVE in it as report_cards.sql counts them (a subagent row observed or a message created
 * in it, the same exact timestamp comparison, independent of the session TimeZone). A
 * session in scope counts with its whole ledger: the ledger holds no time per response, so a
 * window selects sessions, never part of a run. Without a window no probe runs.
 * Cost: one pass over the ledger's keys finds its sessions, each looked up by task_sessions'
 * primary key (= ANY (ARRAY(…)), as report_cards.sql does, so the planner never hashes them
 * against a scan of every session); a window adds, per ledger session, one probe of
 * idx_subagents_session_id and one of idx_messages_session_created. A run's subagent row
 * (alias sub) is found by its key, or, when PostgreSQL estimates it cheaper, by hashing the
 * subagent table. No scan of task_sessions or task_session_messages: the cost follows the
 * ledger, not the history (test/report-usage-ledger-plans.test.ts).
 *
 * A figure no response reported is NULL in the ledger: each figure's SUM skips it (NULL when
 * no row of the group reported it), `tokens` is the four figures' sum over the rows that
 * reported any (NULL when none did), and `unreported` counts the rows missing one of the
 * four, so a total is never read as complete when it is not. `runs` counts distinct
 * (session, execution, tool call): a run that used two models is in two groups.
 *
 * Overflow: the four figures are added as NUMERIC and a row missing one is found by
 * num_nulls(), never by adding them as BIGINT, which raises past int64 (the live path stores
 * any int64 a subagent reports, so one such figure would fail every report of its scope);
 * SUM of BIGINT is NUMERIC already. `runs` counts distinct (session, execution, tool call)
 * tuples, never their ids joined by a separator an id may hold.
 *
 * Order: the subagents' side first, then by tokens (unknown last); ties by subagent_type, the
 * type not reported last, then model, each by its bytes (COLLATE "C"), so both dialects list
 * the same groups first whatever the database's collation (the report shows the first ten).
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen: session_active_in_window.
 */
/* @returns many */
/* @name reportUsageLedger */
WITH scoped AS MATERIALIZED (
  SELECT t.id
    FROM task_sessions AS t
   WHERE t.id = ANY (ARRAY(SELECT u.task_session_id FROM task_session_subagent_usage AS u
                           UNION
                           SELECT p.task_session_id FROM task_session_parent_usage AS p))
     AND (:taskIds::text IS NULL OR t.task_id IN (SELECT jsonb_array_elements_text(:taskIds::text::jsonb)))
     AND {{session_active_in_window(t.id)}}
), groups AS (
  SELECT 'subagent' AS side, sub.subagent_type, u.model,
         COUNT(DISTINCT (u.task_session_id, u.agent_execution_id, u.tool_call_id)) AS runs,
         SUM(u.requests) AS requests,
         SUM(u.input_tokens) AS input_tokens,
         SUM(u.output_tokens) AS output_tokens,
         SUM(u.cache_read_input_tokens) AS cache_read_input_tokens,
         SUM(u.cache_creation_input_tokens) AS cache_creation_input_tokens,
         SUM(CASE WHEN COALESCE(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) IS NOT NULL
                  THEN COALESCE(u.input_tokens, 0)::numeric + COALESCE(u.output_tokens, 0) + COALESCE(u.cache_read_input_tokens, 0) + COALESCE(u.cache_creation_input_tokens, 0) END) AS tokens,
         COUNT(*) FILTER (WHERE num_nulls(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) > 0) AS unreported
    FROM scoped AS sc
    JOIN task_session_subagent_usage AS u ON u.task_session_id = sc.id
    LEFT JOIN task_session_subagents AS sub
      ON sub.task_session_id = u.task_session_id AND sub.agent_execution_id = u.agent_execution_id AND sub.tool_call_id = u.tool_call_id
   GROUP BY sub.subagent_type, u.model
  UNION ALL
  SELECT 'parent', NULL, p.model,
         COUNT(DISTINCT p.task_session_id),
         SUM(p.requests),
         SUM(p.input_tokens),
         SUM(p.output_tokens),
         SUM(p.cache_read_input_tokens),
         SUM(p.cache_creation_input_tokens),
         SUM(CASE WHEN COALESCE(p.input_tokens, p.output_tokens, p.cache_read_input_tokens, p.cache_creation_input_tokens) IS NOT NULL
                  THEN COALESCE(p.input_tokens, 0)::numeric + COALESCE(p.output_tokens, 0) + COALESCE(p.cache_read_input_tokens, 0) + COALESCE(p.cache_creation_input_tokens, 0) END),
         COUNT(*) FILTER (WHERE num_nulls(p.input_tokens, p.output_tokens, p.cache_read_input_tokens, p.cache_creation_input_tokens) > 0)
    FROM scoped AS sc
    JOIN task_session_parent_usage AS p ON p.task_session_id = sc.id
   GROUP BY p.model
)
SELECT side AS "side!",
       subagent_type AS "subagent_type?",
       model AS "model!",
       runs::text AS "runs!",
       requests::text AS "requests?",
       input_tokens::text AS "input_tokens?",
       output_tokens::text AS "output_tokens?",
       cache_read_input_tokens::text AS "cache_read_input_tokens?",
       cache_creation_input_tokens::text AS "cache_creation_input_tokens?",
       tokens::text AS "tokens?",
       unreported::text AS "unreported!"
  FROM groups
 ORDER BY side DESC, groups.tokens DESC NULLS LAST, subagent_type COLLATE "C" NULLS LAST, model COLLATE "C";
