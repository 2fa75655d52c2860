/*
 * recordFrames' write: many frames' upserts as ONE statement, for bursts (one round trip
 * instead of one per frame). Each element of :frames is one frame's normalized parameters
 * (src/frame-normalization.ts), keyed by column name; the conflict clause below is
 * upsert_subagent_context.sql's, rule for rule — test/live-model.test.ts replays random
 * sequences through recordFrames and compares every column with the merge model.
 * One INSERT … ON CONFLICT cannot update a row twice, so the runner sends a burst as rounds
 * in which each key appears at most once (the k-th frame of every key in round k): each
 * key's frames still apply in the order they were observed.
 */
/* @returns exec */
/* @name upsertSubagentContextsBatch */
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
)
SELECT f.id, f.task_session_id, f.task_id, f.turn_id, f.agent_execution_id, f.tool_call_id,
       f.parent_tool_call_id, f.subagent_type, f.description, f.agent_id, f.child_session_id, f.model,
       f.agent_status, f.tool_status, f.is_async, f.total_tokens, f.tool_use_count, f.duration_ms,
       'live',                                              -- AC-1: a frame that creates the row is live
       f.observed_at,
       -- AC-11: the six TERMINAL_TOOL_STATUSES, as in the single upsert.
       CASE WHEN f.tool_status IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
            THEN f.observed_at END,
       f.observed_at
  -- Metrics arrive as decimal strings (int64-safe) and are typed BIGINT by the record.
  FROM jsonb_to_recordset(:frames!::jsonb) AS f(id text, task_session_id text, task_id text, turn_id text, agent_execution_id text, tool_call_id text, parent_tool_call_id text, subagent_type text, description text, agent_id text, child_session_id text, model text, agent_status text, tool_status text, is_async integer, total_tokens bigint, tool_use_count bigint, duration_ms bigint, observed_at timestamp)
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
