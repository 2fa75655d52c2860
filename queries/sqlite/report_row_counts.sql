/*
 * REPORT — provenance and executions over the window's subagent rows (AC-25, read by
 * store.report(), DESIGN §9). One row of counts:
 * - provenance (AC-25): rows with source 'live' and 'backfill' are counted apart, because a
 *   backfilled row holds only what survived in message metadata and may not be compared
 *   like-for-like with a live one without disclosing the split. `live_before_capture_since`
 *   counts live rows observed before subagent_context_capture_since: real measurements that
 *   are kept and counted (the keys bound completeness, never validity, AC-25 revision 2);
 *   0 when :captureSince is NULL (key absent, the caller reports null).
 * - executions (AC-25 as extended by Amendment 1, AC-31): 'unknown' is never an execution
 *   and two 'unknown' rows are never one execution, so the distinct count excludes the
 *   sentinel and `unknown_rows` counts it apart. `unknown_live_rows_since_execution_since`
 *   are live rows observed at or after subagent_context_execution_since that still carry
 *   'unknown': frames that genuinely arrived without an execution id (AC-31), as opposed to
 *   backfilled rows (unknown by construction) and rows older than the key.
 * - `shadowed_backfill_rows`: backfilled rows whose invocation another row already records
 *   (shadowed_backfill: the same task_session_id and tool_call_id, source <> 'backfill'; AC-22
 *   names this overlap). The fan-out, token and card figures leave them out, so each such
 *   invocation counts once; provenance and executions count every row. The caller discloses
 *   the figure (AC-25).
 * - `rows_without_turn`: rows with no turn_id, which belong to no turn's fan-out; a shadowed
 *   backfilled row is not one of them (its invocation is counted by its live row).
 *
 * Window (AC-24e, docs/timestamps.md): rows with :since <= observed_at < :until, exact on
 * every stored form: each value is brought to the fixed-width "utc9" form and compared with
 * bounds in that form (no julianday, no raw text). :sinceFloor and :untilCeil (the UTC dates
 * one day before :since and two days after :until) bound the bare column so
 * idx_subagents_observed_at serves the window; they never exclude a row the exact comparison
 * admits. Without a window the bounds are '' and '~', between which every stored form lies,
 * and the exact comparison is skipped (`:since = ''`, `:until = '~'`): it could exclude nothing.
 * :captureSince and :executionSince are keys in the same utc9 form, or NULL.
 * Scope (spec § Permissions): :taskIds, a JSON array, admits only rows of sessions whose
 * task (task_sessions.task_id, the session's own task) is listed; NULL admits every task.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): utc9, shadowed_backfill.
 */
/* @returns one */
/* @name reportRowCounts */
SELECT COUNT(*) AS "rows!",
       COUNT(CASE WHEN w.source = 'live' THEN 1 END) AS "live!",
       COUNT(CASE WHEN w.source = 'backfill' THEN 1 END) AS "backfill!",
       COUNT(CASE WHEN w.source = 'live' AND w.at < :captureSince THEN 1 END) AS "live_before_capture_since!",
       COUNT(CASE WHEN w.shadowed THEN 1 END) AS "shadowed_backfill_rows!",
       COUNT(CASE WHEN w.turn_id IS NULL AND NOT w.shadowed THEN 1 END) AS "rows_without_turn!",
       COUNT(CASE WHEN w.agent_execution_id <> 'unknown' THEN 1 END) AS "identified_rows!",
       COUNT(DISTINCT CASE WHEN w.agent_execution_id <> 'unknown' THEN w.agent_execution_id END) AS "distinct_executions!",
       COUNT(CASE WHEN w.agent_execution_id = 'unknown' THEN 1 END) AS "unknown_rows!",
       COUNT(CASE WHEN w.agent_execution_id = 'unknown' AND w.source = 'backfill' THEN 1 END) AS "unknown_backfill_rows!",
       COUNT(CASE WHEN w.agent_execution_id = 'unknown' AND w.source <> 'backfill' AND w.at >= :executionSince THEN 1 END) AS "unknown_live_rows_since_execution_since!"
  FROM (SELECT s.source, s.turn_id, s.agent_execution_id, {{utc9(s.observed_at)}} AS at,
               {{shadowed_backfill(s)}} AS shadowed
          FROM task_session_subagents AS s
         WHERE s.observed_at >= :sinceFloor! AND s.observed_at < :untilCeil!
           AND (:taskIds IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT j.value FROM json_each(:taskIds) AS j)))) AS w
 WHERE (:since! = '' OR w.at >= :since!) AND (:until! = '~' OR w.at < :until!);
