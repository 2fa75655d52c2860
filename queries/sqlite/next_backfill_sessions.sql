/*
 * The next chunk of the backfill (issues 32 and 34): up to :limit sessions after the cursor,
 * in key order (the id's binary order, as its primary key index keeps it). The runner reads it
 * inside the chunk's BEGIN IMMEDIATE, so no host write can change the range before the chunk's
 * INSERT (backfill_subagent_contexts.sql) commits; the host's writer waits for that one chunk.
 *
 * Only the sessions the cursor can hold, which are the only ones that can get a row: a key
 * that is recordable (AC-21a, src/identity.ts; every other session's messages are skipped by
 * the chunk statement anyway). The cursor is kept as text in kandev_meta and comes back
 * through JavaScript, so a key it cannot hold exactly made the walk return the same session
 * after the cursor on every chunk and never end (a review, 2026-12): a BLOB (a Go []byte
 * written to the host's TEXT PRIMARY KEY stays one) sorts after all text, so it is after any
 * text cursor, and text that is not well-formed UTF-8 is read back with U+FFFD, which can sort
 * below it. `s.id < x''` excludes every BLOB (x'' is the least one) and bounds the index range
 * so the range scan stays one; recordable_id then drops the rest as the index yields them.
 * Numbers and NULL sort before all text, so `> :after` (never below '') already excludes them.
 * count_backfill_sessions_after.sql counts the same sessions.
 *
 * COLLATE BINARY on every comparison and the ORDER BY: a host whose id column has a collation
 * (`id TEXT COLLATE NOCASE`) had the walk order and cut its chunks in that collation, while the
 * chunk statement ranges the staging table (BINARY) by the same bounds, so some sessions fell
 * between chunks and were never backfilled (a review, 2026-12). With the column's own BINARY
 * collation the term is a no-op and the primary key index still serves the walk; with another
 * collation the index cannot, and each chunk's read scans task_sessions (one row per session).
 *
 * Fragments, each included as {{name(argument)}} from queries/sqlite/fragments/ and expanded by
 * codegen (the generated module shows the whole statement): recordable_id.
 */
/* @returns many */
/* @name nextBackfillSessions */
SELECT s.id AS "id!"
  FROM task_sessions AS s
 WHERE s.id COLLATE BINARY > :after! AND s.id COLLATE BINARY < x''
   AND {{recordable_id(s.id)}}
 ORDER BY s.id COLLATE BINARY
 LIMIT :limit!;
