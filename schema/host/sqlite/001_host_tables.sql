-- The host (Kandev) tables this package reads and never writes, as the host ships them
-- on SQLite. Used by tests, the demo and the benchmarks; a real host already has them.
CREATE TABLE IF NOT EXISTS task_sessions (
  id         TEXT PRIMARY KEY,
  task_id    TEXT NOT NULL,
  state      TEXT NOT NULL DEFAULT 'CREATED',
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL
);

CREATE TABLE IF NOT EXISTS task_session_messages (
  id              TEXT PRIMARY KEY,
  task_session_id TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE,
  task_id         TEXT DEFAULT '',
  turn_id         TEXT,
  author_type     TEXT NOT NULL DEFAULT 'agent',
  author_id       TEXT,
  content         TEXT NOT NULL DEFAULT '',
  requests_input  INTEGER NOT NULL DEFAULT 0,
  type            TEXT NOT NULL DEFAULT 'message',
  metadata        TEXT,
  created_at      TIMESTAMP NOT NULL,
  updated_at      TIMESTAMP
);

CREATE INDEX IF NOT EXISTS idx_messages_created_at ON task_session_messages(created_at);
CREATE INDEX IF NOT EXISTS idx_messages_session_created ON task_session_messages(task_session_id, created_at);
