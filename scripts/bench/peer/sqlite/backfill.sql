-- Bench only: the backfill as the spec writes it (AC-21, AC-21b, AC-22, AC-23a), the peer that
-- `npm run bench` times beside the package's own. Kandev-shaped on purpose: every message's
-- JSON parsed (no text prefilter), a window-ranked INSERT … SELECT over the whole table, every
-- field read by json_extract where it is used. The one addition to the spec's text is the
-- minimal guard without which it aborts on the benchmark stores (they hold legacy '', 'null'
-- and truncated documents, as real ones do): AC-23b's NULL/''/'null' mapping plus json_valid.
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
)
SELECT lower(hex(randomblob(16))), r.task_session_id, r.task_id, NULLIF(r.turn_id, ''), 'unknown',
       json_extract(r.meta, '$.tool_call_id'),
       NULLIF(json_extract(r.meta, '$.parent_tool_call_id'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.subagent_type'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.description'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.agent_id'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.child_session_id'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.model'), ''),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.status'), ''),
       NULLIF(json_extract(r.meta, '$.status'), ''),
       CASE WHEN json_extract(r.meta, '$.normalized.subagent_task.is_async') = 1 THEN 1 ELSE 0 END,
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.total_tokens'), 0),
       json_extract(r.meta, '$.normalized.subagent_task.tool_use_count'),
       NULLIF(json_extract(r.meta, '$.normalized.subagent_task.duration_ms'), 0),
       'backfill', r.created_at,
       CASE WHEN json_extract(r.meta, '$.status') IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
            THEN COALESCE(r.updated_at, r.created_at) END,
       COALESCE(r.updated_at, r.created_at)
  FROM (
    SELECT msg.*,
           row_number() OVER (PARTITION BY msg.task_session_id, json_extract(msg.meta, '$.tool_call_id')
                              ORDER BY msg.created_at DESC, msg.id DESC) AS rn
      FROM (SELECT m.*,
                   (CASE WHEN m.metadata IS NULL OR m.metadata = '' OR m.metadata = 'null' OR NOT json_valid(m.metadata)
                         THEN '{}' ELSE m.metadata END) AS meta
              FROM task_session_messages AS m) AS msg
     WHERE json_extract(msg.meta, '$.normalized.kind') = 'subagent_task'
       AND COALESCE(msg.task_session_id, '') <> ''
       AND COALESCE(msg.task_id, '') <> ''
       AND COALESCE(json_extract(msg.meta, '$.tool_call_id'), '') <> ''
       AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = msg.task_session_id)
  ) AS r
 WHERE r.rn = 1
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING
