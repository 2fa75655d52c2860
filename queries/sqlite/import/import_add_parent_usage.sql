/*
 * IMPORT — adds the parent's own usage (its main transcript) for one model: the same
 * additive rule as import_add_subagent_usage.sql, per session and model, saturating at int64's
 * largest value as it does.
 */
/* @returns exec */
/* @name importAddParentUsage */
INSERT INTO task_session_parent_usage (
  task_session_id, model, source,
  requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at
) VALUES (
  :sessionId!, :model!, :source!,
  :requests, :inputTokens, :outputTokens, :cacheReadInputTokens, :cacheCreationInputTokens, :at!
)
ON CONFLICT (task_session_id, model) DO UPDATE SET
  requests                    = CASE WHEN excluded.requests IS NULL THEN task_session_parent_usage.requests
                                     WHEN COALESCE(task_session_parent_usage.requests, 0) > 9223372036854775807 - excluded.requests THEN 9223372036854775807
                                     ELSE COALESCE(task_session_parent_usage.requests, 0) + excluded.requests END,
  input_tokens                = CASE WHEN excluded.input_tokens IS NULL THEN task_session_parent_usage.input_tokens
                                     WHEN COALESCE(task_session_parent_usage.input_tokens, 0) > 9223372036854775807 - excluded.input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_parent_usage.input_tokens, 0) + excluded.input_tokens END,
  output_tokens               = CASE WHEN excluded.output_tokens IS NULL THEN task_session_parent_usage.output_tokens
                                     WHEN COALESCE(task_session_parent_usage.output_tokens, 0) > 9223372036854775807 - excluded.output_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_parent_usage.output_tokens, 0) + excluded.output_tokens END,
  cache_read_input_tokens     = CASE WHEN excluded.cache_read_input_tokens IS NULL THEN task_session_parent_usage.cache_read_input_tokens
                                     WHEN COALESCE(task_session_parent_usage.cache_read_input_tokens, 0) > 9223372036854775807 - excluded.cache_read_input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_parent_usage.cache_read_input_tokens, 0) + excluded.cache_read_input_tokens END,
  cache_creation_input_tokens = CASE WHEN excluded.cache_creation_input_tokens IS NULL THEN task_session_parent_usage.cache_creation_input_tokens
                                     WHEN COALESCE(task_session_parent_usage.cache_creation_input_tokens, 0) > 9223372036854775807 - excluded.cache_creation_input_tokens THEN 9223372036854775807
                                     ELSE COALESCE(task_session_parent_usage.cache_creation_input_tokens, 0) + excluded.cache_creation_input_tokens END,
  updated_at                  = excluded.updated_at;
