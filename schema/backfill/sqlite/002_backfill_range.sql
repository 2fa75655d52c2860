-- One rowid range's candidates, read ahead outside the write lock (issue 32;
-- src/migrations/backfill-stage.ts): phase 1 reads a range into this table of its own
-- connection's temp schema, which takes no write lock on the host's database (WAL lets a host
-- writer commit meanwhile), then keeps them in the staging table (001_backfill_stage.sql) in a short
-- transaction under the write lock. TEMP: private to the migrating connection, gone with it,
-- never in the host's file; dropped when phase 1 ends.
-- The staging table's columns (001_backfill_stage.sql says what each holds).
CREATE TEMP TABLE IF NOT EXISTS subagent_context_backfill_range (
  task_session_id TEXT NOT NULL,
  id              NOT NULL,
  rid             INTEGER NOT NULL,
  task_id,
  tool_call_id,
  created_utc9,
  PRIMARY KEY (task_session_id, id)
) WITHOUT ROWID;
