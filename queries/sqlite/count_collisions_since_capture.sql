/*
 * AC-28 / AC-32: cross-execution collisions in the window, rows minus distinct
 * (task_session_id, tool_call_id) keys. Orthogonal to both anti-joins: expected > 0
 * wherever a tool_call_id was reused by a later execution, never an alarm.
 * The window is the shortfall's: utc9(observed_at) >= :since, with the bare-column
 * :sinceFloor bound for the index (AC-24e, docs/timestamps.md).
 */
/* @name countCollisionsSinceCapture */
SELECT COUNT(*) - COUNT(DISTINCT s.task_session_id || ':' || s.tool_call_id) AS "collisions!"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor!
   AND (strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!;
