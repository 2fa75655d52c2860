/*
 * IMPORT — adds one subagent's usage for one model to the ledger (issue 33): the figures of
 * the distinct responses an import read since its last run (src/import/usage-tally.ts), or
 * the difference a later line of an already-counted response made. Additive, never a
 * replacement: each run adds what it read, once (its progress row commits in the same
 * transaction). NULL is "not reported": a NULL delta leaves the stored figure as it is, and a
 * stored NULL becomes the delta, so a figure no response reported stays NULL, never 0.
 * Saturating at int64's largest value: a sum that would pass it keeps it (the import hands
 * no delta above it, src/import/import-store.ts). Without the bound, the addition failed
 * (22003, bigint out of range) and with it the transcript's unit, on every run. Figures are
 * never negative, so the subtraction that tests the bound cannot overflow.
 */
/* @returns exec */
/* @name importAddSubagentUsage */
INSERT INTO task_session_subagent_usage (
  task_session_id, agent_execution_id, tool_call_id, model, source,
  requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at
) VALUES (
  :sessionId!, :executionId!, :toolCallId!, :model!, :source!,
  :requests, :inputTokens, :outputTokens, :cacheReadInputTokens, :cacheCreationInputTokens, :at!
)
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id, model) DO UPDATE SET
  requests                    = CASE WHEN EXCLUDED.requests IS NULL THEN task_session_subagent_usage.requests
                                     WHEN COALESCE(task_session_subagent_usage.requests, 0) > 9223372036854775807 - EXCLUDED.requests THEN 9223372036854775807
                                     ELSE COALESCE(task_session_subagent_usage.requests, 0) + EXCLUDED.requests END,
  input_tokens                = CASE WHEN EXCLUDED.input_tokens IS NULL THEN task_session_subagent_usage.input_tokens
                                     WHEN COALESCE(task_session_subagent_usage.input_tokens, 0) > 9223372036854775807 - EXCLUDED.input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_subagent_usage.input_tokens, 0) + EXCLUDED.input_tokens END,
  output_tokens               = CASE WHEN EXCLUDED.output_tokens IS NULL THEN task_session_subagent_usage.output_tokens
                                     WHEN COALESCE(task_session_subagent_usage.output_tokens, 0) > 9223372036854775807 - EXCLUDED.output_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_subagent_usage.output_tokens, 0) + EXCLUDED.output_tokens END,
  cache_read_input_tokens     = CASE WHEN EXCLUDED.cache_read_input_tokens IS NULL THEN task_session_subagent_usage.cache_read_input_tokens
                                     WHEN COALESCE(task_session_subagent_usage.cache_read_input_tokens, 0) > 9223372036854775807 - EXCLUDED.cache_read_input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_subagent_usage.cache_read_input_tokens, 0) + EXCLUDED.cache_read_input_tokens END,
  cache_creation_input_tokens = CASE WHEN EXCLUDED.cache_creation_input_tokens IS NULL THEN task_session_subagent_usage.cache_creation_input_tokens
                                     WHEN COALESCE(task_session_subagent_usage.cache_creation_input_tokens, 0) > 9223372036854775807 - EXCLUDED.cache_creation_input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_subagent_usage.cache_creation_input_tokens, 0) + EXCLUDED.cache_creation_input_tokens END,
  updated_at                  = EXCLUDED.updated_at;
