/*
 * The live write path (AC-14): ONE atomic upsert per frame, no read-then-write. Every merge
 * rule lives in the conflict clause below, each beside the criterion it implements.
 * Parameters arrive normalized by src/frame-normalization.ts: '' is already NULL (column
 * rules), a metric that was not reported, was 0 for total_tokens/duration_ms (AC-7a) or was
 * negative (AC-9) is already NULL, executionId is already 'unknown' when absent (AC-31).
 * A NULL parameter therefore means "absent", and COALESCE(new, old) is AC-4: an absent
 * value never blanks a stored one.
 */
/* @returns exec */
/* @name upsertSubagentContext */
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
) VALUES (
  :id!, :sessionId!, :taskId!, :turnId, :executionId!, :toolCallId!,
  :parentToolCallId, :subagentType, :description, :agentId, :childSessionId, :model,
  -- Metrics typed BIGINT here rather than inferred from the columns: a named statement keeps
  -- its parameter types, so one prepared before an INTEGER column was widened stays int64-safe.
  :agentStatus, :toolStatus, :isAsync!, :totalTokens::bigint, :toolUseCount::bigint, :durationMs::bigint,
  'live',                                                   -- AC-1: a frame that creates the row is live
  :observedAt!::timestamp,
  -- AC-11: settled at the first observation whose ACP tool status is terminal. The six
  -- values are TERMINAL_TOOL_STATUSES (src/terminal-tool-status.ts; a test pins the two).
  CASE WHEN :toolStatus IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
       THEN :observedAt!::timestamp END,
  :observedAt!::timestamp
)
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO UPDATE SET
  -- Write-once, so deliberately absent from this list: id, source and observed_at (AC-1,
  -- AC-1a), task_id (AC-5 table), agent_execution_id (AC-30..AC-32: part of the key).
  -- AC-2a: first non-empty turn wins; a stored NULL is filled forward.
  turn_id             = COALESCE(task_session_subagents.turn_id, excluded.turn_id),
  -- AC-5 replace rule, AC-4 never blank (also after settlement, AC-12 revision 3).
  parent_tool_call_id = COALESCE(excluded.parent_tool_call_id, task_session_subagents.parent_tool_call_id),
  subagent_type       = COALESCE(excluded.subagent_type, task_session_subagents.subagent_type),
  description         = COALESCE(excluded.description, task_session_subagents.description),
  agent_id            = COALESCE(excluded.agent_id, task_session_subagents.agent_id),
  child_session_id    = COALESCE(excluded.child_session_id, task_session_subagents.child_session_id),
  model               = COALESCE(excluded.model, task_session_subagents.model),
  agent_status        = COALESCE(excluded.agent_status, task_session_subagents.agent_status), -- AC-10a
  -- AC-12: tool_status freezes at the terminal value once the row has settled.
  tool_status         = CASE WHEN task_session_subagents.settled_at IS NOT NULL
                             THEN task_session_subagents.tool_status
                             ELSE COALESCE(excluded.tool_status, task_session_subagents.tool_status) END,
  -- AC-11: settled_at is write-once at the first terminal observation.
  settled_at          = COALESCE(task_session_subagents.settled_at, excluded.settled_at),
  -- Column rules: is_async is sticky, set to 1 on a positive report and never back to 0.
  is_async            = GREATEST(task_session_subagents.is_async, excluded.is_async),
  -- AC-7a, AC-8, AC-9: NULL (not reported / zero / negative) never blanks a learned value.
  total_tokens        = COALESCE(excluded.total_tokens, task_session_subagents.total_tokens),
  tool_use_count      = COALESCE(excluded.tool_use_count, task_session_subagents.tool_use_count),
  duration_ms         = COALESCE(excluded.duration_ms, task_session_subagents.duration_ms),
  -- last write to this row
  updated_at          = excluded.updated_at;
