/*
 * IMPORT — the tool call that launched a subagent, by the agent id its result named: how a
 * subagent transcript whose sidecar (agent-<id>.meta.json) is missing finds its row. The
 * session's own rows only (idx_subagents_session_id).
 */
/* @returns maybe-one */
/* @name importFindSubagentToolCall */
SELECT s.tool_call_id AS "toolCallId!::string"
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
   AND s.agent_execution_id = :executionId!
   AND s.agent_id = :agentId!
 ORDER BY s.observed_at, s.tool_call_id
 LIMIT 1;
