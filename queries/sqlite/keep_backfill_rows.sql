/*
 * One phase-2 chunk's rows (backfill_subagent_contexts.sql, computed into the connection's
 * temp rows table ahead of the chunk's transaction) inserted into task_session_subagents,
 * under the write lock (src/migrations/backfill-step.ts).
 *
 * The session is read again here: one the host deleted after the rows were computed writes
 * nothing (the foreign key would fail the insert where the host enforces it).
 * AC-22: a row already on the key (a live row, a pre-amendment row, an earlier backfill) is
 * left untouched, so a live write always wins and a replay is a no-op.
 */
/* @returns exec */
/* @name keepBackfillRows */
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at,
  {{text_columns()}}
)
SELECT r.id, r.task_session_id, r.task_id, r.turn_id, r.agent_execution_id, r.tool_call_id,
       r.tool_status, r.is_async, r.total_tokens, r.tool_use_count, r.duration_ms,
       r.source, r.observed_at, r.settled_at, r.updated_at,
       {{text_columns(r)}}
  FROM temp.subagent_context_backfill_rows AS r
 WHERE EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = r.task_session_id)
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING;
