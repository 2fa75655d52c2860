/*
 * AC-28 / AC-32: cross-execution collisions in the window, rows minus distinct
 * (task_session_id, tool_call_id) keys. Orthogonal to both anti-joins: expected > 0
 * wherever a tool_call_id was reused by a later execution, never an alarm.
 * The key is the session id length-prefixed, then the tool call id: the spec's
 * `session || ':' || tool_call_id` assumes ids without ':', but ids here are any text up to
 * 512 bytes (ACP's), and sessions 'a:b' + call 'c' and 'a' + call 'b:c' are two keys.
 * The window is the shortfall's: utc9(observed_at) >= :since, with its two bare-column
 * terms (the :sinceFloor bound for the index, and the test that drops the floor's rows on
 * the index entry; count_shortfall_since_capture.sql, AC-24e, docs/timestamps.md).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, utc9.
 */
/* @returns one */
/* @name countCollisionsSinceCapture */
SELECT COUNT(*) - COUNT(DISTINCT length(s.task_session_id) || ':' || s.task_session_id || s.tool_call_id) AS "collisions!::bigint"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor!
   AND {{before_since_text(s.observed_at)}}
   AND {{utc9(s.observed_at)}} >= :since!;
