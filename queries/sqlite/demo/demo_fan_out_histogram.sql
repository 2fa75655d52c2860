/*
 * DEMO report — the measurement the feature exists for (spec § Why): how many subagents each
 * turn fanned out to, as a histogram "fan-out -> number of turns", and how many of those turns
 * the backfill recovered from message history (every row of the turn has source 'backfill').
 * One row of task_session_subagents is one invocation, so a turn's fan-out is its row count;
 * two rows that differ only in agent_execution_id are two real invocations that reused an id
 * (spec § Data model), so rows are counted, not distinct tool_call_ids. Rows without a turn
 * (turn_id NULL: no turn was active) belong to no turn and are left out.
 */
/* @name demoFanOutHistogram */
SELECT per_turn.fan_out AS "fan_out!::bigint",
       COUNT(*) AS "turns!::bigint",
       SUM(per_turn.all_backfill) AS "backfilled_turns!::bigint"
  FROM (SELECT s.task_session_id, s.turn_id, COUNT(*) AS fan_out,
               MIN(CASE WHEN s.source = 'backfill' THEN 1 ELSE 0 END) AS all_backfill
          FROM task_session_subagents AS s
         WHERE s.turn_id IS NOT NULL
         GROUP BY s.task_session_id, s.turn_id) AS per_turn
 GROUP BY per_turn.fan_out
 ORDER BY per_turn.fan_out;
