/*
 * PROXY ONLY — proxy_upsert_subagent_message.sql for a whole batch in ONE statement (one
 * round trip instead of one per message): each element of :rows is one message row {id,
 * session_id, task_id, turn_id, metadata}, every id at most once (one INSERT … ON CONFLICT
 * cannot update a row twice): src/proxy/batch-jobs.ts sends a batch's updates of one message
 * in rounds, the k-th of each message in round k, so they apply in order and this statement
 * alone decides what the row keeps. The conflict clause is the single statement's, rule for
 * rule. UTC text typed TIMESTAMP.
 */
/* @returns exec */
/* @name proxyUpsertSubagentMessagesBatch */
INSERT INTO task_session_messages (
  id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at
)
SELECT r.id, r.session_id, r.task_id, r.turn_id, 'agent', '', 'tool_call', r.metadata, :at!::timestamp, :at!::timestamp
  FROM jsonb_to_recordset(:rows!::jsonb) AS r(id text, session_id text, task_id text, turn_id text, metadata text)
ON CONFLICT (id) DO UPDATE SET
  metadata   = excluded.metadata,
  turn_id    = COALESCE(task_session_messages.turn_id, excluded.turn_id),
  updated_at = excluded.updated_at;
