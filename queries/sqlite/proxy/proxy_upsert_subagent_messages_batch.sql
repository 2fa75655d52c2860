/*
 * PROXY ONLY — proxy_upsert_subagent_message.sql for a whole batch in ONE statement: each
 * element of :rows is one message row {id, session_id, task_id, turn_id, metadata}, every
 * id at most once: src/proxy/batch-jobs.ts sends a batch's updates of one message in rounds,
 * the k-th of each message in round k, so they apply in order and this statement alone
 * decides what the row keeps. The conflict clause is the single statement's, rule for rule.
 */
/* @returns exec */
/* @name proxyUpsertSubagentMessagesBatch */
INSERT INTO task_session_messages (
  id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at
)
SELECT r.value ->> '$.id', r.value ->> '$.session_id', r.value ->> '$.task_id', r.value ->> '$.turn_id',
       'agent', '', 'tool_call', r.value ->> '$.metadata', :at!, :at!
  FROM json_each(:rows!) AS r
 WHERE true -- SQLite needs a WHERE between INSERT … SELECT and ON CONFLICT to parse the upsert
ON CONFLICT (id) DO UPDATE SET
  metadata   = excluded.metadata,
  turn_id    = COALESCE(task_session_messages.turn_id, excluded.turn_id),
  updated_at = excluded.updated_at;
