-- One phase-2 chunk's rows, computed ahead outside the write lock (issue 32;
-- src/migrations/backfill-step.ts): queries/sqlite/backfill_subagent_contexts.sql writes a
-- chunk's rows into this table of the migrating connection's temp schema, which takes no write
-- lock on the host's database (in WAL mode a host writer commits meanwhile), and
-- keep_backfill_rows.sql then inserts them into task_session_subagents in a short transaction
-- under the write lock. Its columns are the
-- package table's, copied from it (no constraint: a chunk holds one row per key already), so a
-- column added to the package table needs no edit here, and source_message_id: the message
-- each row was computed from, which the transaction checks is still there, in that session
-- (check_backfill_rows.sql). TEMP: private to the migrating connection, gone with it, never in
-- the host's file; dropped when the walk ends.
CREATE TEMP TABLE IF NOT EXISTS subagent_context_backfill_rows AS
SELECT t.*, t.id AS source_message_id FROM main.task_session_subagents AS t WHERE false;
