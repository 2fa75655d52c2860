/*
 * AC-13: one turn's subagent contexts (its fan-out), in the order observed_at, tool_call_id, agent_execution_id, the
 * last two in byte order (COLLATE "C", as SQLite's BINARY); id is never a tiebreak.
 * Timestamps come back as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' text, formatted here rather than
 * by the driver, which would build a JavaScript Date (milliseconds, process time zone).
 */
/* @name listSubagentContextsByTurn */
SELECT s.id, s.task_session_id, s.task_id, s.turn_id, s.agent_execution_id, s.tool_call_id,
       s.parent_tool_call_id, s.subagent_type, s.description, s.agent_id, s.child_session_id,
       s.model, s.agent_status, s.tool_status, s.is_async, s.total_tokens, s.tool_use_count,
       s.duration_ms, s.source,
       to_char(s.observed_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "observed_at!",
       to_char(s.settled_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "settled_at?",
       to_char(s.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "updated_at!"
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
   AND s.turn_id = :turnId!
 ORDER BY s.observed_at, s.tool_call_id COLLATE "C", s.agent_execution_id COLLATE "C";
