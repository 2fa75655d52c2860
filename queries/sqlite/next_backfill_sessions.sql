/*
 * The next chunk of the backfill (issues 32 and 34): up to :limit sessions after the cursor,
 * in key order (the id's binary order, as its primary key index keeps it). The runner reads it
 * inside the chunk's BEGIN IMMEDIATE, so no host write can change the range before the chunk's
 * INSERT (backfill_subagent_contexts.sql) commits; the host's writer waits for that one chunk.
 */
/* @returns many */
/* @name nextBackfillSessions */
SELECT s.id AS "id!"
  FROM task_sessions AS s
 WHERE s.id > :after!
 ORDER BY s.id
 LIMIT :limit!;
