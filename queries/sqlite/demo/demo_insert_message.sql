/*
 * DEMO ONLY — the demo stands in for the host's message writer, which the package never
 * replaces: it writes one task_session_messages row per chat message or tool call, with the
 * tool call's JSON in metadata (a subagent launch carries metadata.normalized.kind =
 * 'subagent_task'). The demo's seeded history and its live stream both go through here, with
 * timestamps in the Go driver's text form the host uses on SQLite.
 */
/* @returns exec */
/* @name demoInsertMessage */
INSERT INTO task_session_messages (
  id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at
) VALUES (
  :id!, :sessionId!, :taskId!, :turnId, :authorType!, :content!, :type!, :metadata, :createdAt!, :updatedAt
);
