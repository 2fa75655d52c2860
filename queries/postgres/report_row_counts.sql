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
 * Window (AC-24e, docs/timestamps.md): rows with :since <= observed_at < :until. Every bound
 * is an instant rounded UP to the next whole microsecond and bound as a TIMESTAMP, so the
 * comparison is exact for microsecond columns and timestamp against timestamp: the session
 * TimeZone plays no part. Without a window the bounds are '-infinity' and 'infinity'.
 * (SQLite also takes :sinceFloor and :untilCeil, its index bounds; this dialect needs none.)
 * :captureSince and :executionSince are keys bound the same way,
 * or NULL. Counts come back as text, so no host type parser can change them.
 * Scope (spec § Permissions): :taskIds, a JSON array, admits only rows of sessions whose
 * task (task_sessions.task_id, the session's own task) is listed; NULL admits every task.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): shadowed_backfill.
 */
/* @returns one */
/* @name reportRowCounts */
SELECT COUNT(*)::text AS "rows!",
       COUNT(CASE WHEN s.source = 'live' THEN 1 END)::text AS "live!",
       COUNT(CASE WHEN s.source = 'backfill' THEN 1 END)::text AS "backfill!",
       COUNT(CASE WHEN s.source = 'live' AND s.observed_at < :captureSince::timestamp THEN 1 END)::text AS "live_before_capture_since!",
       COUNT(CASE WHEN w.shadowed THEN 1 END)::text AS "shadowed_backfill_rows!",
       COUNT(CASE WHEN s.turn_id IS NULL AND NOT w.shadowed THEN 1 END)::text AS "rows_without_turn!",
       COUNT(CASE WHEN s.agent_execution_id <> 'unknown' THEN 1 END)::text AS "identified_rows!",
       COUNT(DISTINCT CASE WHEN s.agent_execution_id <> 'unknown' THEN s.agent_execution_id END)::text AS "distinct_executions!",
       COUNT(CASE WHEN s.agent_execution_id = 'unknown' THEN 1 END)::text AS "unknown_rows!",
       COUNT(CASE WHEN s.agent_execution_id = 'unknown' AND s.source = 'backfill' THEN 1 END)::text AS "unknown_backfill_rows!",
       COUNT(CASE WHEN s.agent_execution_id = 'unknown' AND s.source <> 'backfill' AND s.observed_at >= :executionSince::timestamp THEN 1 END)::text AS "unknown_live_rows_since_execution_since!"
  FROM task_session_subagents AS s
 CROSS JOIN LATERAL (SELECT {{shadowed_backfill(s)}} AS shadowed) AS w
 WHERE s.observed_at >= :since!::timestamp AND s.observed_at < :until!::timestamp
   AND (:taskIds::text IS NULL OR s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.task_id IN (SELECT jsonb_array_elements_text(:taskIds::text::jsonb))));
