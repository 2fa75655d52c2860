/*
 * AC-28 / AC-32: cross-execution collisions in the window, rows minus distinct
 * (task_session_id, tool_call_id) keys. Orthogonal to both anti-joins: expected > 0
 * wherever a tool_call_id was reused by a later execution, never an alarm.
 * Distinct (session, tool call) pairs, never the spec's `session || ':' || tool_call_id`, which
 * assumes ids without ':' (ids here are any text up to 512 bytes: 'a:b' + 'c' and 'a' + 'b:c'
 * are two keys).
 * The window is the shortfall's: :since is the key rounded up to whole microseconds and
 * bound as a TIMESTAMP, independent of the session TimeZone (AC-24e, docs/timestamps.md).
 */
/* @returns one */
/* @name countCollisionsSinceCapture */
SELECT COUNT(*) - COUNT(DISTINCT (s.task_session_id, s.tool_call_id)) AS "collisions!"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :since!::timestamp
   -- Always true; it makes a range, which the planner estimates narrow without statistics, so
   -- it searches idx_subagents_observed_at instead of reading every row (dense-1m, last 1%:
   -- 9.4 ms as a lone lower bound; see count_excess_since_capture.sql).
   AND s.observed_at <= 'infinity'::timestamp;
