-- The spec's three secondary indexes (AC-33 clause 4) plus observed_at, which the health
-- queries' `observed_at >= :since` window needs (AC-28, AC-29). The AC-33 rebuild applies
-- this same file, so a migrated database and a fresh one have identical index sets.
CREATE INDEX IF NOT EXISTS idx_subagents_session_id ON task_session_subagents(task_session_id);
CREATE INDEX IF NOT EXISTS idx_subagents_task_id ON task_session_subagents(task_id);
CREATE INDEX IF NOT EXISTS idx_subagents_turn_id ON task_session_subagents(turn_id);
CREATE INDEX IF NOT EXISTS idx_subagents_observed_at ON task_session_subagents(observed_at);
