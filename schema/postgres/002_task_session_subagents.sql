-- task_session_subagents: one row per subagent invocation (spec § Data model).
-- TIMESTAMP without time zone holding UTC, like the host's tables (DESIGN §4).
-- Metric columns are BIGINT: the spec says int64 verbatim (DESIGN §3).
-- Each column's tag says what the live upsert does with it on a conflict, and @from where a
-- frame reports it; codegen derives the statements' column lists and the TypeScript that
-- carries a frame to them from these tags (scripts/lib/column-rules.ts, docs/recipes.md).
CREATE TABLE IF NOT EXISTS task_session_subagents (
  id                  TEXT PRIMARY KEY,           -- @write-once; AC-1
  task_session_id     TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE, -- @key @from frame.sessionId; AC-16
  task_id             TEXT NOT NULL,              -- @write-once @from frame.taskId; AC-5 table
  turn_id             TEXT,                       -- @fill-forward @from frame.turnId; AC-2a; no FK: the measurement outlives the turn
  agent_execution_id  TEXT NOT NULL,              -- @key @from frame.executionId; AC-31: 'unknown' when no identity; no FK
  tool_call_id        TEXT NOT NULL,              -- @key @from frame.toolCallId
  parent_tool_call_id TEXT,                       -- @replace @from frame.parentToolCallId; AC-6
  subagent_type       TEXT,                       -- @replace @from payload.subagent_type
  description         TEXT,                       -- @replace @from payload.description
  agent_id            TEXT,                       -- @replace @from payload.agent_id
  child_session_id    TEXT,                       -- @replace @from payload.child_session_id
  model               TEXT,                       -- @replace @from payload.model
  agent_status        TEXT,                       -- @replace @from payload.status; AC-10a: the child's own report, verbatim
  output_file         TEXT,                       -- @replace @from payload.output_file; where a background subagent writes its output (an extension: docs/spec-map.md)
  tool_status         TEXT,                       -- @terminal-guarded @from frame.toolStatus; AC-12: frozen once settled; hand-written in the upserts
  is_async            INTEGER NOT NULL DEFAULT 0, -- @sticky @from payload.is_async; only a positive report sets it
  total_tokens        BIGINT,                     -- @replace @from payload.total_tokens; AC-7: NULL when not reported, never 0-filled
  tool_use_count      BIGINT,                     -- @replace @from payload.tool_use_count; AC-8: a reported 0 stays 0
  duration_ms         BIGINT,                     -- @replace @from payload.duration_ms
  source              TEXT NOT NULL DEFAULT 'live', -- @write-once; AC-1: 'live', or 'backfill' (AC-21)
  observed_at         TIMESTAMP NOT NULL,         -- @write-once; AC-1a: the first observation
  settled_at          TIMESTAMP,                  -- @fill-forward; AC-11: the first terminal observation
  updated_at          TIMESTAMP NOT NULL,         -- @latest; the last write
  UNIQUE (task_session_id, agent_execution_id, tool_call_id) -- the upsert key (AC-14, AC-30)
);
