/*
 * AC-13: a session's subagent contexts, in the order observed_at, tool_call_id, agent_execution_id, the
 * last two in byte order (COLLATE "C", as SQLite's BINARY); id is never a tiebreak.
 * Timestamps come back as 'YYYY-MM-DDTHH:MM:SS.ffffffZ' text, formatted here rather than
 * by the driver, which would build a JavaScript Date (milliseconds, process time zone).
 * Fragments, included as {{name(argument)}} from queries/postgres/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): subagent_row (derived from
 * schema/postgres/002_task_session_subagents.sql: every column, in DDL order).
 */
/* @returns many */
/* @name listSubagentContextsBySession */
SELECT {{subagent_row(s)}}
  FROM task_session_subagents AS s
 WHERE s.task_session_id = :sessionId!
 ORDER BY s.observed_at, s.tool_call_id COLLATE "C", s.agent_execution_id COLLATE "C";
