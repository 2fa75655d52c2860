/*
 * The backfill's progress (issue 32 item 4): the sessions a run still has to walk when it
 * starts, those after the cursor in the id column's own collation, as next_backfill_sessions.sql walks them
 * (the primary key's index answers it). Read only when a host asked for progress
 * (runMigrations({ onBackfillProgress }), the CLI's migrate), outside the chunks' transactions.
 */
/* @returns one */
/* @name countBackfillSessionsAfter */
SELECT count(*)::int AS "sessions!" FROM task_sessions AS s WHERE s.id > :after!;
