/*
 * The chunk's sessions locked FOR KEY SHARE until its transaction ends (issues 32 and 34), by
 * key: the keys next_backfill_sessions.sql read, minus any a host deleted or re-keyed since
 * (the lock waits for a host's transaction in flight on a session, then skips the row if it is
 * gone or no longer has its key). The lock is what lets the chunk's INSERT
 * (backfill_subagent_contexts.sql, over exactly these sessions) meet a host that deletes
 * sessions: a session whose delete committed first is not returned, and a delete that comes
 * later waits for this chunk's COMMIT, at most one chunk (the runner's time target,
 * docs/migrations.md). KEY SHARE conflicts only with a delete or a key update: the host's
 * ordinary session updates (state, updated_at) and its message writes never wait. No SKIP
 * LOCKED: a session locked by a host's in-flight update is waited for, never skipped, or its
 * rows would be a gap. In key order, as the walk reads them, whatever the plan: a host deleting
 * several sessions in one transaction in that order can then not deadlock with a chunk. Locking a row needs the UPDATE privilege on a column of task_sessions
 * (docs/deploying.md, Permissions).
 */
/* @returns many */
/* @name lockBackfillSessions */
SELECT s.id AS "id!"
  FROM task_sessions AS s
 WHERE s.id = ANY(:sessionIds!::text[])
 ORDER BY s.id
   FOR KEY SHARE OF s;
