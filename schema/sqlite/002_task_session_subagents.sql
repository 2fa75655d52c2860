-- task_session_subagents: one row per subagent invocation (spec § Data model).
-- Timestamps are TEXT in the host's Go-driver form; this package writes them fixed-width
-- 'YYYY-MM-DD HH:MM:SS.ffffff+00:00' (DESIGN §4).
CREATE TABLE IF NOT EXISTS task_session_subagents (
  id                  TEXT PRIMARY KEY,
  task_session_id     TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE, -- AC-16
  task_id             TEXT NOT NULL,
  turn_id             TEXT,                       -- no FK: the measurement outlives the turn
  agent_execution_id  TEXT NOT NULL,              -- AC-31: 'unknown' when no identity; no FK
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
  total_tokens        INTEGER,                    -- AC-7: NULL when not reported, never 0-filled
  tool_use_count      INTEGER,
  duration_ms         INTEGER,
  source              TEXT NOT NULL DEFAULT 'live',
  observed_at         TIMESTAMP NOT NULL,
  settled_at          TIMESTAMP,
  updated_at          TIMESTAMP NOT NULL,
  UNIQUE (task_session_id, agent_execution_id, tool_call_id) -- the upsert key (AC-14, AC-30)
);
