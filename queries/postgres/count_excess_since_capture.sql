/*
 * AC-28 EXCESS, attributed and never an alarm: distinct (task_session_id, tool_call_id) keys
 * of rows observed at or after capture_since with no subagent message created at or after
 * it. Expected > 0 after a failed message write (AC-27) or an activation-boundary straddle
 * (AC-1a); measured on its own so it can never mask a shortfall (revision 3).
 *
 * The message half deliberately carries NO identity filter (revision 4): it subtracts the
 * widest set of messages that could account for a row.
 *
 * `observed EXCEPT messages` written as `DISTINCT observed WHERE NOT EXISTS message`, for
 * the plan reasons given in count_shortfall_since_capture.sql; `msg` (AC-23b) and the time
 * comparison (AC-24e, docs/timestamps.md) are exactly as there.
 * Cost: a message whose text does not contain 'subagent_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is mapped to '{}' before any JSON is validated or parsed: only the
 * window's few subagent messages reach the parser (and PostgreSQL 15's PL/pgSQL validator).
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): metadata_or_empty.
 */
/* @name countExcessSinceCapture */
WITH msg AS (
  SELECT m.task_session_id, m.created_at,
         {{metadata_or_empty(m.metadata)}} AS meta
    FROM task_session_messages AS m
)
SELECT COUNT(*) AS "excess!" FROM (
  SELECT DISTINCT s.task_session_id, s.tool_call_id
    FROM task_session_subagents AS s
   WHERE s.observed_at >= :since!::timestamp
     AND NOT EXISTS (
       SELECT 1
         FROM msg
        WHERE msg.task_session_id = s.task_session_id
          AND msg.meta #>> '{tool_call_id}' = s.tool_call_id
          AND msg.meta #>> '{normalized,kind}' = 'subagent_task'
          AND msg.created_at >= :since!::timestamp)
) AS excess;
