-- The SQLite backfill's staging table (issue 32; src/migrations/backfill-stage.ts): the
-- candidates phase 1 found by reading the host's messages in storage order, rowid range by
-- rowid range, as 0.2's single statement read them. Phase 2 then writes each chunk of session
-- keys from these candidates alone (queries/sqlite/backfill_subagent_contexts.sql), so no
-- chunk reads the host's messages through the (task_session_id, created_at) index, a row
-- lookup per message that made the session walk 2.2-2.8x 0.2's statement (BENCHMARKS.md).
-- Created in the backfill's first transaction and dropped in the one that writes the
-- activation keys: a store that is not mid-backfill has no such table. No foreign key: a
-- candidate whose message or session the host deleted meanwhile is skipped by phase 2's join.
-- WITHOUT ROWID, keyed by session first: phase 2 reads a chunk's candidates as one range.
CREATE TABLE IF NOT EXISTS subagent_context_backfill_stage (
  task_session_id TEXT NOT NULL,
  id              TEXT NOT NULL,
  PRIMARY KEY (task_session_id, id)
) WITHOUT ROWID;
