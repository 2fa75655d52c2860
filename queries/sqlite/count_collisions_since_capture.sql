/*
 * AC-28 / AC-32: cross-execution collisions in the window, rows minus distinct
 * (task_session_id, tool_call_id) keys. Orthogonal to both anti-joins: expected > 0
 * wherever a tool_call_id was reused by a later execution, never an alarm.
 * The window is the shortfall's: utc9(observed_at) >= :since, with its two bare-column
 * terms (the :sinceFloor bound for the index, and the test that drops the floor's rows on
 * the index entry; count_shortfall_since_capture.sql, AC-24e, docs/timestamps.md).
 *
 * Inlined fragments, each copy marked with its name and pinned to one canonical text by
 * test/sql-fragment-pin.test.ts: utc9. Inlined rather than shared because SQLite's SQL
 * cannot define a function, and a view could serve only the package's own table, never the
 * host's messages (DESIGN §3): one pin covers every copy (reasons in that test's header).
 */
/* @name countCollisionsSinceCapture */
SELECT COUNT(*) - COUNT(DISTINCT s.task_session_id || ':' || s.tool_call_id) AS "collisions!::bigint"
  FROM task_session_subagents AS s
 WHERE s.observed_at >= :sinceFloor!
   AND (s.observed_at >= substr(:since!, 1, 19) OR substr(s.observed_at, -6, 1) = '-')
   AND (/* utc9(s.observed_at) */ strftime('%Y-%m-%d %H:%M:%S', substr(s.observed_at, 1, 19) || ltrim(substr(s.observed_at, 20), '.0123456789')) || '.' || substr(substr(s.observed_at, 21, max(length(s.observed_at) - 20 - length(ltrim(substr(s.observed_at, 20), '.0123456789')), 0)) || '000000000', 1, 9)) >= :since!;
