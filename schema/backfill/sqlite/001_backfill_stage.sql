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
-- Beside the key, what AC-21b's ranking reads from each message as phase 1 found it: its rowid,
-- task id, tool_call_id (a JSON string, else NULL) and created_at as utc9. Phase 2 ranks from
-- these columns alone, without reading a candidate again, only while nothing can have changed
-- since they were staged (src/sqlite/stage-freshness.ts); otherwise it reads each by id. No
-- declared type on id, task_id, tool_call_id and created_utc9, so no affinity converts a value:
-- a host's integer task id stays an integer, as the recordable-id rule must see it, and an
-- integer message id ranks as one (AC-21b's tiebreak), as it does when phase 2 reads it again.
CREATE TABLE IF NOT EXISTS subagent_context_backfill_stage (
  task_session_id TEXT NOT NULL,
  id              NOT NULL,
  rid             INTEGER NOT NULL,
  task_id,
  tool_call_id,
  created_utc9,
  PRIMARY KEY (task_session_id, id)
) WITHOUT ROWID;
