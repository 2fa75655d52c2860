/*
 * The SQLite backfill's phase-1 anchor (src/migrations/backfill-stage.ts): the message with
 * the greatest rowid at most :upTo, kept beside the cursor. SQLite documents that VACUUM may
 * renumber the rowids of a table without an INTEGER PRIMARY KEY; before each range the
 * runner looks the anchor up by id (read_message_rowid_by_id.sql), and a different rowid
 * means the ranges already walked no longer cover the same messages: phase 1 starts over.
 */
/* @returns maybe-one */
/* @name readMessageRowidAnchor */
SELECT m.rowid AS "rid!::bigint", m.id AS "id!"
  FROM task_session_messages AS m
 WHERE m.rowid <= :upTo!
 ORDER BY m.rowid DESC
 LIMIT 1;
