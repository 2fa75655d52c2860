/*
 * IMPORT — the message row of a nested launch read after a later line of its call created it
 * (import_backdate_launch_row.sql says when): its created_at, the first observation as
 * proxy_upsert_subagent_message.sql keeps it, moves back to the launch's instant, never
 * forward, and it takes the launch's turn, as the subagent row does. Only a message row created
 * with the import's own row (the same first instant): its id, derived from (session, tool call),
 * is also a live writer's (the proxy and the import can both record one Claude Code session),
 * and a live row's first observation is its own. Run before import_backdate_launch_row.sql,
 * which moves the instant compared here. :at is cast as that statement casts it,
 * so both sides of each comparison are read alike.
 */
/* @returns exec */
/* @name importBackdateLaunchMessage */
UPDATE task_session_messages
   SET created_at = :at!::timestamp,
       turn_id    = COALESCE(:turnId, turn_id)
 WHERE id = :id!
   AND created_at > :at!::timestamp
   AND created_at = (SELECT s.observed_at
                       FROM task_session_subagents AS s
                      WHERE s.task_session_id = :sessionId!
                        AND s.agent_execution_id = :executionId!
                        AND s.tool_call_id = :toolCallId!);
