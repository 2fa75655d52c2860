/*
 * The live write path (AC-14): ONE atomic upsert per frame, no read-then-write. Every merge
 * rule lives in the conflict clause below, each beside the criterion it implements.
 * Parameters arrive normalized by src/frame-normalization.ts: '' is already NULL (column
 * rules), a metric that was not reported, was 0 for total_tokens/duration_ms (AC-7a) or was
 * negative (AC-9) is already NULL, executionId is already 'unknown' when absent (AC-31).
 * A NULL parameter therefore means "absent", and COALESCE(new, old) is AC-4: an absent
 * value never blanks a stored one.
 *
 * Derived from the column tags of schema/sqlite/002_task_session_subagents.sql
 * (scripts/lib/column-fragments.ts): the text columns ({{text_columns()}}, each a
 * parameter in camel case, {{text_parameters()}}) and the SET line of every column with a
 * standard rule ({{merge_rules(excluded)}}, each line marked with its rule). Written here:
 * every other column's value, and tool_status's rule, the one that is not standard.
 */
/* @returns exec */
/* @name upsertSubagentContext */
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at,
  {{text_columns()}}
) VALUES (
  :id!, :sessionId!, :taskId!, :turnId, :executionId!, :toolCallId!,
  :toolStatus, :isAsync!, :totalTokens, :toolUseCount, :durationMs,
  'live',                                                   -- AC-1: a frame that creates the row is live
  :observedAt!,
  -- AC-11: settled at the first observation whose ACP tool status is terminal. The six
  -- values are TERMINAL_TOOL_STATUSES (src/terminal-tool-status.ts; a test pins the two).
  CASE WHEN :toolStatus IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
       THEN :observedAt! END,
  :observedAt!,
  {{text_parameters()}}
)
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO UPDATE SET
  -- @key and @write-once columns are deliberately absent: id, source and observed_at (AC-1,
  -- AC-1a), task_id (AC-5 table), agent_execution_id (AC-30..AC-32: part of the key).
  -- The standard rules, one line per column: @fill-forward COALESCE(old, new) (turn_id AC-2a,
  -- settled_at AC-11); @replace COALESCE(new, old), NULL never blanks (AC-4, AC-5, AC-10a,
  -- and the metrics' AC-7a/AC-8/AC-9: not reported, zero or negative is already NULL; also
  -- after settlement, AC-12 revision 3); @sticky is_async never back to 0; @latest updated_at.
  {{merge_rules(excluded)}},
  -- AC-12 (@terminal-guarded): tool_status freezes at the terminal value once the row has settled.
  tool_status         = CASE WHEN task_session_subagents.settled_at IS NOT NULL
                             THEN task_session_subagents.tool_status
                             ELSE COALESCE(excluded.tool_status, task_session_subagents.tool_status) END;
