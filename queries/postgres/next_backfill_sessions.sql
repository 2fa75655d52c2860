/*
 * The next chunk of the backfill (issues 32 and 34): up to :limit sessions after the cursor,
 * in key order, each locked FOR KEY SHARE until this transaction ends. The lock is what lets
 * the chunk's INSERT (backfill_subagent_contexts.sql) meet a host that deletes sessions: a
 * session whose delete committed first is not returned (the lock skips a row that is gone and
 * LIMIT takes the next), and a delete that comes later waits for this chunk's COMMIT, at most
 * one chunk (the runner's time target, docs/migrations.md). KEY SHARE conflicts only with a
 * delete or a key update: the host's ordinary session updates (state, updated_at) and its
 * message writes never wait. No SKIP LOCKED: a session locked by a host's in-flight update
 * is waited for, never skipped, or its rows would be a gap.
 * Key order is the id column's own (its collation), as its primary key index keeps it, and
 * the cursor comparison uses the same, so the walk is an index range scan per chunk.
 */
/* @returns many */
/* @name nextBackfillSessions */
SELECT s.id AS "id!"
  FROM task_sessions AS s
 WHERE s.id > :after!
 ORDER BY s.id
 LIMIT :limit!
   FOR KEY SHARE OF s;
