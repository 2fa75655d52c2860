/*
 * The backfill's progress (issue 32 item 4) on the window walk: the messages created in
 * [:lo, :top], from the created_at index alone. Read only when a host asked for progress
 * (runMigrations({ onBackfillProgress }), the CLI's migrate), outside the windows'
 * transactions: once with lo '-infinity' for the messages a run has to read, then once per
 * window for those it read.
 */
/* @returns one */
/* @name countBackfillWindowMessages */
SELECT LEAST(count(*), 2147483647)::int AS "messages!" -- an int, as the other counts; capped, never an error
  FROM task_session_messages AS m
 WHERE m.created_at >= :lo!
   AND m.created_at <= :top!;
