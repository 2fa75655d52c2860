/*
 * Phase 1 of the SQLite backfill (src/migrations/backfill-stage.ts), under the write lock: the
 * candidates stage_backfill_candidates.sql read into the temp range table are kept in the
 * staging table, in the transaction that moves phase 1's cursor past their range.
 *
 * ON CONFLICT DO NOTHING: a range staged twice (a run that resumes from an older cursor)
 * stages nothing new, and keeps the columns staged first: phase 2 ranks from them only when
 * this run staged every candidate and nothing changed since (src/sqlite/stage-freshness.ts). `WHERE true`: SQLite's parser needs a WHERE before ON CONFLICT in an
 * INSERT … SELECT.
 */
/* @returns exec */
/* @name keepBackfillRange */
INSERT INTO subagent_context_backfill_stage (task_session_id, id, rid, task_id, tool_call_id, created_utc9)
SELECT r.task_session_id, r.id, r.rid, r.task_id, r.tool_call_id, r.created_utc9
  FROM temp.subagent_context_backfill_range AS r
 WHERE true
ON CONFLICT DO NOTHING;
