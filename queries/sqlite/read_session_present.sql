/*
 * Whether task_sessions holds the session a live frame wrote: the foreign key's own test
 * (task_session_subagents.task_session_id → task_sessions(id), AC-16), made by the writer
 * itself where the host deferred foreign keys in its open transaction (PRAGMA
 * defer_foreign_keys, src/sqlite/transaction.ts). There the key is checked only at the host's
 * COMMIT, so a frame of an unknown session would read 'persisted' and the host's COMMIT then
 * fail on it. Switching the pragma off for the write instead (as 0.3's first fix did) also
 * zeroed SQLite's count of the host's own deferred violations, and the host committed orphan
 * rows it had written (a review, 2026-12). Read right after the frame's upsert, in its
 * savepoint, where SQLite tests an immediate key: at the statement's end, after the host's
 * triggers (one may insert the session). `id = :id` compares as the foreign key does: under
 * the parent column's affinity and collation.
 */
/* @returns one */
/* @name readSessionPresent */
SELECT EXISTS (SELECT 1 FROM task_sessions AS s WHERE s.id = :id!) AS "present!::bigint";
