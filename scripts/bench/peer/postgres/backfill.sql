-- Bench only: the backfill as the spec writes it (AC-21, AC-21b, AC-22, AC-23a, AC-19's #>>
-- for json_extract), the peer that `npm run bench` times beside the package's own.
-- Kandev-shaped on purpose: every message's JSON parsed (no text prefilter), a window-ranked
-- INSERT … SELECT over the whole table, every field read where it is used. The one addition
-- to the spec's text is the minimal guard without which it aborts on the benchmark stores
-- (legacy '', 'null' and truncated documents): AC-23b's NULL/''/'null' mapping plus
-- pg_input_is_valid (PostgreSQL 16+) for the truncated ones.
INSERT INTO task_session_subagents (
  id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
  parent_tool_call_id, subagent_type, description, agent_id, child_session_id, model,
  agent_status, tool_status, is_async, total_tokens, tool_use_count, duration_ms,
  source, observed_at, settled_at, updated_at
)
SELECT gen_random_uuid()::text, r.task_session_id, r.task_id, NULLIF(r.turn_id, ''), 'unknown',
       r.meta #>> '{tool_call_id}',
       NULLIF(r.meta #>> '{parent_tool_call_id}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,subagent_type}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,description}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,agent_id}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,child_session_id}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,model}', ''),
       NULLIF(r.meta #>> '{normalized,subagent_task,status}', ''),
       NULLIF(r.meta #>> '{status}', ''),
       CASE WHEN r.meta #>> '{normalized,subagent_task,is_async}' = 'true' THEN 1 ELSE 0 END,
       NULLIF((r.meta #>> '{normalized,subagent_task,total_tokens}')::bigint, 0),
       (r.meta #>> '{normalized,subagent_task,tool_use_count}')::bigint,
       NULLIF((r.meta #>> '{normalized,subagent_task,duration_ms}')::bigint, 0),
       'backfill', r.created_at,
       CASE WHEN r.meta #>> '{status}' IN ('complete', 'completed', 'success', 'error', 'failed', 'cancelled')
            THEN COALESCE(r.updated_at, r.created_at) END,
       COALESCE(r.updated_at, r.created_at)
  FROM (
    SELECT msg.*,
           row_number() OVER (PARTITION BY msg.task_session_id, msg.meta #>> '{tool_call_id}'
                              ORDER BY msg.created_at DESC, msg.id DESC) AS rn
      FROM (SELECT m.*,
                   (CASE WHEN m.metadata IS NULL OR m.metadata = '' OR m.metadata = 'null' OR NOT pg_input_is_valid(m.metadata, 'jsonb')
                         THEN '{}' ELSE m.metadata END)::jsonb AS meta
              FROM task_session_messages AS m) AS msg
     WHERE msg.meta #>> '{normalized,kind}' = 'subagent_task'
       AND COALESCE(msg.task_session_id, '') <> ''
       AND COALESCE(msg.task_id, '') <> ''
       AND COALESCE(msg.meta #>> '{tool_call_id}', '') <> ''
       AND EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = msg.task_session_id)
  ) AS r
 WHERE r.rn = 1
ON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING
