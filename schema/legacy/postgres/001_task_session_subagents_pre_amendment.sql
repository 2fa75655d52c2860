-- The pre-amendment shape the earlier host build created: no agent_execution_id and an
-- inline two-column UNIQUE (task_session_id, tool_call_id). Tests of AC-33 start here.
-- Metric columns are INTEGER as that build declared them (int4 on PostgreSQL).
CREATE TABLE IF NOT EXISTS task_session_subagents (
  id                  TEXT PRIMARY KEY,
  task_session_id     TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE,
  task_id             TEXT NOT NULL,
  turn_id             TEXT,
  tool_call_id        TEXT NOT NULL,
  parent_tool_call_id TEXT,
  subagent_type       TEXT,
  description         TEXT,
  agent_id            TEXT,
  child_session_id    TEXT,
  model               TEXT,
  agent_status        TEXT,
  tool_status         TEXT,
  is_async            INTEGER NOT NULL DEFAULT 0,
  total_tokens        INTEGER,
  tool_use_count      INTEGER,
  duration_ms         INTEGER,
  source              TEXT NOT NULL DEFAULT 'live',
  observed_at         TIMESTAMP NOT NULL,
  settled_at          TIMESTAMP,
  updated_at          TIMESTAMP NOT NULL,
  UNIQUE (task_session_id, tool_call_id)
);
CREATE INDEX IF NOT EXISTS idx_subagents_session_id ON task_session_subagents(task_session_id);
CREATE INDEX IF NOT EXISTS idx_subagents_task_id ON task_session_subagents(task_id);
CREATE INDEX IF NOT EXISTS idx_subagents_turn_id ON task_session_subagents(turn_id);
