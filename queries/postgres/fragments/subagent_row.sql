/*
 * subagent_row(x): every column of task_session_subagents row x, as the store reads a row back
 * (SubagentContextRow): the columns in DDL order, the timestamps as
 * 'YYYY-MM-DDTHH:MM:SS.ffffffZ' text, formatted here rather than by the driver, which would
 * build a JavaScript Date (milliseconds, process time zone). The list statements select
 * exactly this; test/codegen-fragments.test.ts checks it names every column of the fresh DDL,
 * in order.
 * @list
 */
x.id, x.task_session_id, x.task_id, x.turn_id, x.agent_execution_id, x.tool_call_id,
x.parent_tool_call_id, x.subagent_type, x.description, x.agent_id, x.child_session_id,
x.model, x.agent_status, x.tool_status, x.is_async, x.total_tokens, x.tool_use_count,
x.duration_ms, x.source,
to_char(x.observed_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "observed_at!",
to_char(x.settled_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "settled_at?",
to_char(x.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "updated_at!"
