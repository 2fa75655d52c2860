/*
 * REPORT — the usage ledger (issue 33) per session and per card: the subagents' tokens (every
 * run's ledger rows, summed over models) beside the parent's own (its main transcript), and
 * the spec's reported total_tokens of the same runs (Claude Code's: each run's last response),
 * so a reader sees the subagents' share of each session's and card's tokens and how much of
 * it total_tokens covers. Rows: one 'session' per session in scope, one 'card' per task, and
 * one 'all' (every session in scope).
 *
 * Scope: exactly report_usage_ledger.sql's (task scope through task_sessions.task_id; a
 * window admits the sessions active in it, each with its whole ledger), and its cost.
 *
 * NULL is not 0. A session's subagent_tokens is 0 when the ledger holds no run of it, NULL
 * when it holds runs none of which reported a figure; parent_tokens is NULL when the ledger
 * holds no parent usage for the session (a live intake records the subagents only). A card's
 * (or 'all') sum is NULL as soon as one of its sessions' is, so a share is only ever taken of
 * figures known for every session. *_unreported count the ledger rows missing one of the four
 * figures (their sums are then lower bounds). reported_total_tokens sums total_tokens over
 * the runs whose subagent row reported it (reported_runs of them; NULL when none did), read
 * through positive_metric as report_tokens.sql reads it: a stored 0 or negative is unreported.
 *
 * Overflow: the token sums are taken over REAL (x * 1.0), as report_usage_ledger.sql says why:
 * SUM over integers fails past int64, over REAL it cannot, exact below 2^53.
 *
 * Order: by level, then by subagent tokens (unknown last); ties by task_id and then session id,
 * each by its bytes (COLLATE BINARY) and NULL last (a host's task_id may allow it), so both
 * dialects list the same cards and sessions first whatever the database's collation (the
 * report shows the first ten).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen: session_active_in_window (its utc9 inside), positive_metric.
 */
/* @returns many */
/* @name reportUsageLedgerSessions */
WITH scoped AS MATERIALIZED (
  SELECT t.id, t.task_id
    FROM task_sessions AS t
   WHERE t.id IN (SELECT u.task_session_id FROM task_session_subagent_usage AS u
                  UNION
                  SELECT p.task_session_id FROM task_session_parent_usage AS p)
     AND (:taskIds IS NULL OR t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j))
     AND {{session_active_in_window(t.id)}}
), runs AS (
  SELECT u.task_session_id, u.agent_execution_id, u.tool_call_id,
         SUM(CASE WHEN COALESCE(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) IS NOT NULL THEN COALESCE(u.input_tokens, 0) * 1.0 + COALESCE(u.output_tokens, 0) + COALESCE(u.cache_read_input_tokens, 0) + COALESCE(u.cache_creation_input_tokens, 0) END) AS tokens,
         COUNT(*) - COUNT(u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens) AS unreported
    FROM scoped AS sc
    JOIN task_session_subagent_usage AS u ON u.task_session_id = sc.id
   GROUP BY u.task_session_id, u.agent_execution_id, u.tool_call_id
), parents AS (
  SELECT p.task_session_id,
         SUM(CASE WHEN COALESCE(p.input_tokens, p.output_tokens, p.cache_read_input_tokens, p.cache_creation_input_tokens) IS NOT NULL THEN COALESCE(p.input_tokens, 0) * 1.0 + COALESCE(p.output_tokens, 0) + COALESCE(p.cache_read_input_tokens, 0) + COALESCE(p.cache_creation_input_tokens, 0) END) AS tokens,
         COUNT(*) - COUNT(p.input_tokens + p.output_tokens + p.cache_read_input_tokens + p.cache_creation_input_tokens) AS unreported
    FROM scoped AS sc
    JOIN task_session_parent_usage AS p ON p.task_session_id = sc.id
   GROUP BY p.task_session_id
), sessions AS (
  SELECT sc.task_id, sc.id,
         COUNT(r.tool_call_id) AS runs,
         CASE WHEN COUNT(r.tool_call_id) = 0 THEN 0.0 WHEN COUNT(r.tokens) > 0 THEN SUM(r.tokens) END AS subagent_tokens,
         COALESCE(SUM(r.unreported), 0) AS subagent_unreported,
         SUM({{positive_metric(sub.total_tokens)}} * 1.0) AS reported_total_tokens,
         COUNT({{positive_metric(sub.total_tokens)}}) AS reported_runs
    FROM scoped AS sc
    LEFT JOIN runs AS r ON r.task_session_id = sc.id
    LEFT JOIN task_session_subagents AS sub
      ON sub.task_session_id = r.task_session_id AND sub.agent_execution_id = r.agent_execution_id AND sub.tool_call_id = r.tool_call_id
   GROUP BY sc.task_id, sc.id
), per_session AS (
  SELECT 'session' AS level, se.task_id, se.id, 1 AS sessions, se.runs, se.subagent_tokens, se.subagent_unreported,
         pa.tokens AS parent_tokens, COALESCE(pa.unreported, 0) AS parent_unreported, se.reported_total_tokens, se.reported_runs
    FROM sessions AS se
    LEFT JOIN parents AS pa ON pa.task_session_id = se.id
)
SELECT level AS "level!::string",
       task_id AS "task_id?::string",
       id AS "task_session_id?::string",
       sessions AS "sessions!::bigint",
       runs AS "runs!::bigint",
       subagent_tokens AS "subagent_tokens?::number",
       subagent_unreported AS "subagent_unreported!::bigint",
       parent_tokens AS "parent_tokens?::number",
       parent_unreported AS "parent_unreported!::bigint",
       reported_total_tokens AS "reported_total_tokens?::number",
       reported_runs AS "reported_runs!::bigint"
  FROM per_session
UNION ALL
SELECT 'card', task_id, NULL, COUNT(*), SUM(runs),
       CASE WHEN COUNT(subagent_tokens) = COUNT(*) THEN SUM(subagent_tokens) END, SUM(subagent_unreported),
       CASE WHEN COUNT(parent_tokens) = COUNT(*) THEN SUM(parent_tokens) END, SUM(parent_unreported),
       SUM(reported_total_tokens), SUM(reported_runs)
  FROM per_session
 GROUP BY task_id
UNION ALL
SELECT 'all', NULL, NULL, COUNT(*), COALESCE(SUM(runs), 0),
       CASE WHEN COUNT(subagent_tokens) = COUNT(*) THEN SUM(subagent_tokens) END, COALESCE(SUM(subagent_unreported), 0),
       CASE WHEN COUNT(parent_tokens) = COUNT(*) THEN SUM(parent_tokens) END, COALESCE(SUM(parent_unreported), 0),
       SUM(reported_total_tokens), COALESCE(SUM(reported_runs), 0)
  FROM per_session
 ORDER BY 1, 6 DESC NULLS LAST, 2 COLLATE BINARY NULLS LAST, 3 COLLATE BINARY NULLS LAST;
