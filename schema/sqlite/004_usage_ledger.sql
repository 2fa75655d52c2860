-- The usage ledger (issue 33): tokens per subagent per model, summed over every distinct
-- response of the subagent's own run, where the spec's total_tokens holds one figure the agent
-- reported (Claude Code's: the last response). A figure no response reported is NULL, never 0.
-- Timestamps: TEXT in the host's Go-driver form, fixed-width UTC (DESIGN §4).
-- Keyed like task_session_subagents (session, execution, tool call) plus the model, not by
-- that table's id: the ledger needs no row of it to exist first, and a rebuild of that table
-- (schema/sqlite/upgrade) never has to carry a foreign key pointing at it.
-- source: who wrote the figures: 'claude-code' (a transcript import, docs/claude-code.md) or
-- 'live' (the ACP wire, where an agent reports usage: Qwen Code).
CREATE TABLE IF NOT EXISTS task_session_subagent_usage (
  task_session_id             TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE,
  agent_execution_id          TEXT NOT NULL,
  tool_call_id                TEXT NOT NULL,
  model                       TEXT NOT NULL,            -- 'unknown' when no response named one
  source                      TEXT NOT NULL,
  requests                    INTEGER,                   -- distinct responses; NULL when the agent reports totals only
  input_tokens                INTEGER,
  output_tokens               INTEGER,
  cache_read_input_tokens     INTEGER,
  cache_creation_input_tokens INTEGER,
  updated_at                  TIMESTAMP NOT NULL,
  PRIMARY KEY (task_session_id, agent_execution_id, tool_call_id, model)
);

-- The parent's own usage, per session and model (its main transcript): the denominator of the
-- subagents' share of a session's tokens.
CREATE TABLE IF NOT EXISTS task_session_parent_usage (
  task_session_id             TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE,
  model                       TEXT NOT NULL,
  source                      TEXT NOT NULL,
  requests                    INTEGER,
  input_tokens                INTEGER,
  output_tokens               INTEGER,
  cache_read_input_tokens     INTEGER,
  cache_creation_input_tokens INTEGER,
  updated_at                  TIMESTAMP NOT NULL,
  PRIMARY KEY (task_session_id, model)
);

-- An importer's progress, one row per transcript (source 'claude-code': transcript =
-- '<sessionId>' or '<sessionId>/agent-<agentId>'; never a path, so moving the folder does not
-- import it twice): the byte offset after the last complete line taken, and the last
-- response counted, whose later lines (the same message id, written after this run) add only
-- their difference, and the turn the last line read belongs to (a launch appended later is
-- in it unless a new prompt came first). Written in the same transaction as the rows it accounts for.
CREATE TABLE IF NOT EXISTS subagent_context_import_progress (
  source                      TEXT NOT NULL,
  transcript                  TEXT NOT NULL,
  task_session_id             TEXT NOT NULL REFERENCES task_sessions(id) ON DELETE CASCADE,
  byte_offset                 INTEGER NOT NULL,
  lines                       INTEGER NOT NULL,
  malformed_lines             INTEGER NOT NULL,
  turn_id                     TEXT,                     -- the turn the last line read belongs to
  last_message_id             TEXT,
  last_model                  TEXT,
  last_input_tokens           INTEGER,
  last_output_tokens          INTEGER,
  last_cache_read_tokens      INTEGER,
  last_cache_creation_tokens  INTEGER,
  updated_at                  TIMESTAMP NOT NULL,
  PRIMARY KEY (source, transcript)
);
