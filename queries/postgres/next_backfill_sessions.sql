/*
 * The next chunk of the backfill (issues 32 and 34): up to :limit session keys after the
 * cursor, in key order, read WITHOUT a lock. The runner takes the cursor and the "fewer than
 * asked: the walk is done" test from this list, then locks the sessions by key
 * (lock_backfill_sessions.sql) and backfills the ones it locked.
 * Why not `… LIMIT n FOR KEY SHARE` in one statement: under READ COMMITTED a locked row that
 * a host's transaction re-keyed meanwhile is returned with its NEW key in its old key's place,
 * not sorted again, so a chunk ending on it moved the cursor past every session between the
 * old key and the new one (a review reproduced 24 of 40 sessions skipped). Read apart, a
 * re-keyed session drops out of its chunk at the lock, and is walked later under its new key
 * if that lies past the cursor (docs/migrations.md, Known limits, for one that does not).
 * Key order is the id column's own (its collation), as its primary key index keeps it, and
 * the cursor comparison uses the same, so the walk is an index range scan per chunk.
 */
/* @returns many */
/* @name nextBackfillSessions */
SELECT s.id AS "id!"
  FROM task_sessions AS s
 WHERE s.id > :after!
 ORDER BY s.id
 LIMIT :limit!;
