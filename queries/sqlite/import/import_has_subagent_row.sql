/*
 * IMPORT — whether the launch of a subagent has been imported (its row exists): a subagent's
 * own transcript is taken only once it has, so every row is created by the line that launched
 * it, whatever order the transcripts' lines arrive in.
 */
/* @returns one */
/* @name importHasSubagentRow */
SELECT EXISTS (
  SELECT 1
    FROM task_session_subagents AS s
   WHERE s.task_session_id = :sessionId!
     AND s.agent_execution_id = :executionId!
     AND s.tool_call_id = :toolCallId!
) AS "present!::bigint";
