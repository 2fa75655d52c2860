/*
 * The backfill's progress (issue 32 item 4): the sessions a run still has to walk when it
 * starts, those after the cursor in byte order, as next_backfill_sessions.sql walks them
 * (the primary key's index answers it). Read only when a host asked for progress
 * (runMigrations({ onBackfillProgress }), the CLI's migrate), outside the chunks' transactions.
 * The same sessions the walk reads: no BLOB key, recordable ones only (see there why).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): recordable_id.
 */
/* @returns one */
/* @name countBackfillSessionsAfter */
SELECT count(*) AS "sessions!" FROM task_sessions AS s WHERE s.id COLLATE BINARY > :after! AND s.id COLLATE BINARY < x''
   AND {{recordable_id(s.id)}};
