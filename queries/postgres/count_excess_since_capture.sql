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
 * the plan reasons given in count_shortfall_since_capture.sql; the normalization (AC-23b),
 * the time comparison (AC-24e, docs/timestamps.md), the text prefilter and the window's
 * MATERIALIZED, fenced document (each parsed once) are exactly as there. The anti-join reads
 * the materialized window, a few keys per subagent message, by hash.
 *
 * Fragments, each included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): metadata_or_empty, subagent_prefilter.
 */
/* @returns one */
/* @name countExcessSinceCapture */
WITH win AS MATERIALIZED (
  SELECT w.task_session_id, w.meta #>> '{tool_call_id}' AS tool_call_id
    FROM (SELECT m.task_session_id,
                 {{metadata_or_empty(m.metadata)}} AS meta
            FROM task_session_messages AS m
           WHERE m.created_at >= :since!::timestamp
             -- Always true for a row the line above admits; it makes the two a range, which the planner
             -- estimates narrow without statistics (a lone lower bound reads as a third of the table
             -- and, behind the fence, chose a sequential scan: test/health-plans.test.ts).
             AND m.created_at <= 'infinity'::timestamp
             AND {{subagent_prefilter(m.metadata)}}
          OFFSET 0) AS w
   WHERE w.meta #>> '{normalized,kind}' = 'subagent_task'
)
SELECT COUNT(*) AS "excess!" FROM (
  SELECT DISTINCT s.task_session_id, s.tool_call_id
    FROM task_session_subagents AS s
   WHERE s.observed_at >= :since!::timestamp
     -- The same range as the window's: without statistics a lone lower bound reads as a third
     -- of the table, and the planner scanned every row (dense-1m, last 1%: 50,000 rows read
     -- for 500, 10.6 of the statement's 28 ms); as a range it searches idx_subagents_observed_at.
     AND s.observed_at <= 'infinity'::timestamp
     AND NOT EXISTS (
       SELECT 1
         FROM win
        WHERE win.task_session_id = s.task_session_id
          AND win.tool_call_id = s.tool_call_id)
) AS excess;
