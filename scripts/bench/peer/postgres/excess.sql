-- Bench only: AC-28's excess anti-join as the spec writes it, with pg_input_is_valid added to
-- AC-23b's msg guard (see shortfall.sql).
WITH msg AS (
  SELECT m.task_session_id, m.created_at,
         (CASE WHEN m.metadata IS NULL OR m.metadata = '' OR m.metadata = 'null' OR NOT pg_input_is_valid(m.metadata, 'jsonb')
               THEN '{}' ELSE m.metadata END) AS meta
    FROM task_session_messages m
)
SELECT COUNT(*) AS n FROM (
  SELECT s.task_session_id, s.tool_call_id
    FROM task_session_subagents s
   WHERE s.observed_at >= $1::timestamp
   GROUP BY 1, 2
  EXCEPT
  SELECT msg.task_session_id, msg.meta::jsonb #>> '{tool_call_id}'
    FROM msg
   WHERE msg.meta::jsonb #>> '{normalized,kind}' = 'subagent_task'
     AND msg.created_at >= $1::timestamp
) AS excess
