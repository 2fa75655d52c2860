/*
 * PROXY ONLY — the message row a host's message writer keeps for a subagent tool call: one
 * task_session_messages row per (session, tool_call_id), updated in place as later frames
 * arrive (the id is derived from that pair), with metadata.tool_call_id, the top-level ACP
 * tool status, metadata.parent_tool_call_id and metadata.normalized = {kind: 'subagent_task',
 * subagent_task: payload} — the shape the backfill and the health shortfall read (spec AC-21,
 * AC-28). turn_id and created_at are the first observation's; content is empty: prompts are
 * never stored.
 */
/* @returns exec */
/* @name proxyUpsertSubagentMessage */
INSERT INTO task_session_messages (
  id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at
) VALUES (
  :id!, :sessionId!, :taskId!, :turnId, 'agent', '', 'tool_call', :metadata!, :at!, :at!
)
ON CONFLICT (id) DO UPDATE SET
  metadata   = excluded.metadata,
  turn_id    = COALESCE(task_session_messages.turn_id, excluded.turn_id),
  updated_at = excluded.updated_at;
