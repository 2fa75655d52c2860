/*
 * The backfill's progress (issue 32 item 4): the messages of one chunk's sessions (by key, never
 * a key range: backfill_subagent_contexts.sql says why), read after the chunk commits, outside any chunk's transaction (so it can
 * neither lengthen nor fail one), from the host's (task_session_id, created_at) index the
 * chunk's INSERT just walked (an index range, warm). Read only when a host asked for progress
 * (runMigrations({ onBackfillProgress }), the CLI's migrate): a host that shows none pays
 * nothing for it.
 */
/* @returns one */
/* @name countBackfillChunkMessages */
SELECT count(*)::int AS "messages!"
  FROM task_session_messages AS m
 WHERE m.task_session_id = ANY(:sessionIds!::text[]);
