/*
 * IMPORT — the tool calls of a session's subagents whose rows are not settled yet: a result
 * line for one of them is that subagent's end even without a toolUseResult (a failed or
 * interrupted launch, whose toolUseResult is a plain string, and a nested launch's result),
 * when it arrives in a later import than its launch. The session's own rows only
 * (idx_subagents_session_id); a session holds few unsettled launches at a time.
 */
/* @returns many */
/* @name importReadUnsettledSubagentCalls */
SELECT s.tool_call_id AS "toolCallId!"
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
   AND s.agent_execution_id = :executionId!
   AND s.settled_at IS NULL;
