/*
 * Under the chunk's lock (src/migrations/backfill-step.ts): whether the rows computed ahead into
 * the temp rows table (schema/backfill/sqlite/003_backfill_rows.sql) are still the chunk's. `rows`
 * must be what the computation wrote (a host transaction on the same connection rolled back
 * would have emptied the table); `gone` counts rows whose winning message is no longer in its
 * session (deleted, moved, or its session deleted and made again under the same id): any such
 * row, and the chunk is computed again under the lock, where the runner-up wins.
 */
/* @returns one */
/* @name checkBackfillRows */
SELECT count(*) AS "rows!::bigint",
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM task_session_messages AS m
                                           WHERE m.id = r.source_message_id
                                             AND m.task_session_id = r.task_session_id)) AS "gone!::bigint"
  FROM temp.subagent_context_backfill_rows AS r;
