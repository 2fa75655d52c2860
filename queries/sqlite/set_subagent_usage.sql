/*
 * LIVE — sets one subagent's usage-ledger row (issue 33) to the totals its agent reported on
 * the wire for the whole run (Qwen Code's executionSummary, src/acp/shapes/qwen.ts), written by
 * the store right after the frame's own subagent row (src/store.ts). The figures are the run's
 * sums, never a delta: a frame seen twice sets the same figures again, and the WHERE below
 * then updates nothing at all, not even updated_at, so a replay changes no byte.
 * Parameters arrive normalized by src/usage-normalization.ts: NULL is "not reported", and
 * COALESCE(new, old) keeps a stored figure (never blanked, as AC-4 for the subagent row).
 * A row another source wrote (a transcript import, source 'claude-code', which counts every
 * response itself) is left as it is: the live summary never overwrites it.
 */
/* @returns exec */
/* @name setSubagentUsage */
INSERT INTO task_session_subagent_usage (
  task_session_id, agent_execution_id, tool_call_id, model, source,
  requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at
) VALUES (
  :sessionId!, :executionId!, :toolCallId!, :model!, 'live',
  :requests, :inputTokens, :outputTokens, :cacheReadInputTokens, :cacheCreationInputTokens, :at!
)
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id, model) DO UPDATE SET
  requests                    = COALESCE(excluded.requests, task_session_subagent_usage.requests),
  input_tokens                = COALESCE(excluded.input_tokens, task_session_subagent_usage.input_tokens),
  output_tokens               = COALESCE(excluded.output_tokens, task_session_subagent_usage.output_tokens),
  cache_read_input_tokens     = COALESCE(excluded.cache_read_input_tokens, task_session_subagent_usage.cache_read_input_tokens),
  cache_creation_input_tokens = COALESCE(excluded.cache_creation_input_tokens, task_session_subagent_usage.cache_creation_input_tokens),
  updated_at                  = excluded.updated_at
WHERE task_session_subagent_usage.source = excluded.source
  AND (   (excluded.requests IS NOT NULL AND excluded.requests IS NOT task_session_subagent_usage.requests)
       OR (excluded.input_tokens IS NOT NULL AND excluded.input_tokens IS NOT task_session_subagent_usage.input_tokens)
       OR (excluded.output_tokens IS NOT NULL AND excluded.output_tokens IS NOT task_session_subagent_usage.output_tokens)
       OR (excluded.cache_read_input_tokens IS NOT NULL AND excluded.cache_read_input_tokens IS NOT task_session_subagent_usage.cache_read_input_tokens)
       OR (excluded.cache_creation_input_tokens IS NOT NULL AND excluded.cache_creation_input_tokens IS NOT task_session_subagent_usage.cache_creation_input_tokens));
