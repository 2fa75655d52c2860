/*
 * AC-28 EXCESS, attributed and never an alarm: distinct (task_session_id, tool_call_id) keys
 * of rows observed at or after capture_since with no subagent message created at or after
 * it. Expected > 0 after a failed message write (AC-27) or an activation-boundary straddle
 * (AC-1a); measured on its own so it can never mask a shortfall (revision 3).
 *
 * The message half deliberately carries NO identity filter (revision 4): it subtracts the
 * widest set of messages that could account for a row. Its `IS NOT NULL` term is not one:
 * a message with no tool_call_id accounts for no row under the spec's EXCEPT either, and
 * NOT IN needs it, because one NULL in a NOT IN list makes every comparison unknown.
 *
 * `observed EXCEPT messages` written as `DISTINCT observed WHERE key NOT IN messages`, for
 * the plan reasons given in count_shortfall_since_capture.sql; `msg` (AC-23b), the time
 * comparison (AC-24e, docs/timestamps.md) and the bare-column bounds are exactly as there.
 * Cost: a message whose text does not contain '_task' cannot qualify (see
 * backfill_subagent_contexts.sql for why the text match is a superset of the JSON
 * predicate), so it is mapped to '{}' before any JSON is validated or parsed: only the
 * window's few subagent messages reach the parser.
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): before_since_text, metadata_or_empty, subagent_prefilter, utc9.
 */
/* @returns one */
/* @name countExcessSinceCapture */
WITH msg AS (
  SELECT m.task_session_id, m.created_at, m.metadata,
         {{metadata_or_empty(m.metadata)}} AS meta
    FROM task_session_messages AS m
)
SELECT COUNT(*) AS "excess!::bigint" FROM (
  SELECT DISTINCT s.task_session_id, s.tool_call_id
    FROM task_session_subagents AS s
   WHERE s.observed_at >= :sinceFloor!
     AND {{before_since_text(s.observed_at)}}
     AND {{utc9(s.observed_at)}} >= :since!
     AND (s.task_session_id, s.tool_call_id) NOT IN (
       SELECT msg.task_session_id, CAST(json_extract(msg.meta, '$.tool_call_id') AS TEXT)
         FROM msg
        WHERE msg.created_at >= :sinceFloor!
          AND {{before_since_text(msg.created_at)}}
          AND {{subagent_prefilter(msg.metadata)}}
          AND json_extract(msg.meta, '$.normalized.kind') = 'subagent_task'
          AND json_extract(msg.meta, '$.tool_call_id') IS NOT NULL
          -- Behind the kind test, as in count_shortfall_since_capture.sql (why there).
          AND (CASE WHEN json_extract(msg.meta, '$.normalized.kind') = 'subagent_task' THEN {{utc9(msg.created_at)}} END) >= :since!)
) AS excess;
