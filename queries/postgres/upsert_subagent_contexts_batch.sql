/*
 * recordFrames' write: many frames' upserts as ONE statement, for bursts (one round trip
 * instead of one per frame). Each element of :frames is one frame's normalized parameters
 * (src/frame-normalization.ts), keyed by column name; the conflict clause below is
 * upsert_subagent_context.sql's, rule for rule — test/live-model.test.ts replays random
 * sequences through recordFrames and compares every column with the merge model.
 * One INSERT … ON CONFLICT cannot update a row twice, so the runner sends a burst as rounds
 * in which each key appears at most once (the k-th frame of every key in round k): each
 * key's frames still apply in the order they were observed.
 *
 * Derived from the column tags of schema/postgres/002_task_session_subagents.sql, as in the
 * single upsert: the text columns ({{text_columns()}}, {{text_columns(f)}}, {{text_record()}})
 * and the SET line of every column with a standard rule ({{merge_rules(excluded)}}).
 */
/* @returns exec */
/* @name upsertSubagentContextsBatch */
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at,
  {{text_columns()}}
)
SELECT f.id, f.task_session_id, f.task_id, f.turn_id, f.agent_execution_id, f.tool_call_id,
       f.tool_status, f.is_async, f.total_tokens, f.tool_use_count, f.duration_ms,
       'live',                                              -- AC-1: a frame that creates the row is live
       f.observed_at,
       -- AC-11: the six TERMINAL_TOOL_STATUSES, as in the single upsert.
       CASE WHEN f.tool_status IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
            THEN f.observed_at END,
       f.observed_at,
       {{text_columns(f)}}
  -- Metrics arrive as decimal strings (int64-safe) and are typed BIGINT by the record.
  FROM jsonb_to_recordset(:frames!::jsonb) AS f(id text, task_session_id text, task_id text, turn_id text, agent_execution_id text, tool_call_id text,
                                                tool_status text, is_async integer, total_tokens bigint, tool_use_count bigint, duration_ms bigint,
                                                observed_at timestamp, {{text_record()}})
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO UPDATE SET
  -- @key and @write-once columns are deliberately absent (AC-1, AC-1a, AC-5 table, AC-30..AC-32);
  -- the standard rules as in the single upsert, one line per column, marked with its rule.
  {{merge_rules(excluded)}},
  -- AC-12 (@terminal-guarded): tool_status freezes at the terminal value once the row has settled.
  tool_status         = CASE WHEN task_session_subagents.settled_at IS NOT NULL
                             THEN task_session_subagents.tool_status
                             ELSE COALESCE(excluded.tool_status, task_session_subagents.tool_status) END;
