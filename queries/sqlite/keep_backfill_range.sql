/*
 * Phase 1 of the SQLite backfill (src/migrations/backfill-stage.ts), under the write lock: the
 * candidates stage_backfill_candidates.sql read into the temp range table are kept in the
 * staging table, in the transaction that moves phase 1's cursor past their range.
 *
 * ON CONFLICT DO NOTHING: a range staged twice (a run that resumes from an older cursor)
 * stages nothing new. `WHERE true`: SQLite's parser needs a WHERE before ON CONFLICT in an
 * INSERT … SELECT.
 */
/* @returns exec */
/* @name keepBackfillRange */
INSERT INTO subagent_context_backfill_stage (task_session_id, id)
SELECT r.task_session_id, r.id
  FROM temp.subagent_context_backfill_range AS r
 WHERE true
ON CONFLICT DO NOTHING;
