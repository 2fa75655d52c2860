/*
 * The SQLite backfill's phase 1 (src/migrations/backfill-stage.ts): the least rowid above a
 * range just read, so the next range starts at the next message there is, however far the
 * host's rowids jump (a rowid a host set explicitly can leave a gap of billions).
 */
/* @returns maybe-one */
/* @name readNextMessageRowid */
SELECT m.rowid AS "rid!::bigint" FROM task_session_messages AS m WHERE m.rowid > :after! ORDER BY m.rowid LIMIT 1;
