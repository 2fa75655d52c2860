/*
 * subagent_row(x): every column of task_session_subagents row x, as the store reads a row back
 * (SubagentContextRow): the columns in DDL order, the timestamps brought to the package's one
 * output form 'YYYY-MM-DDTHH:MM:SS.ffffffZ' through utc9 (stored values may be in any
 * Go-driver form; legacy rows keep theirs). The list statements select exactly this;
 * test/codegen-fragments.test.ts checks it names every column of the fresh DDL, in order.
 * @list
 */
x.id, x.task_session_id, x.task_id, x.turn_id, x.agent_execution_id, x.tool_call_id,
x.parent_tool_call_id, x.subagent_type, x.description, x.agent_id, x.child_session_id,
x.model, x.agent_status, x.tool_status, x.is_async, x.total_tokens, x.tool_use_count,
x.duration_ms, x.source,
replace(substr({{utc9(x.observed_at)}}, 1, 26), ' ', 'T') || 'Z' AS "observed_at!::string",
replace(substr({{utc9(x.settled_at)}}, 1, 26), ' ', 'T') || 'Z' AS "settled_at?::string",
replace(substr({{utc9(x.updated_at)}}, 1, 26), ' ', 'T') || 'Z' AS "updated_at!::string"
