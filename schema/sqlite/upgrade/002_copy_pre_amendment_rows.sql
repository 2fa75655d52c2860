-- AC-33 on SQLite, step 3 of the rebuild (see 001): every pre-amendment row survives with
-- every column value byte for byte — same values, same storage classes, timestamps in
-- whatever form they were written (clause 5) — and the execution sentinel 'unknown'
-- (AC-31: those rows never had an execution dimension). The columns carry the same
-- declared types as before, so SQLite's type affinity leaves every value as it was.
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
)
SELECT
  id, task_session_id, task_id, turn_id, 'unknown', tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
FROM task_session_subagents_pre_amendment;

DROP TABLE task_session_subagents_pre_amendment;
