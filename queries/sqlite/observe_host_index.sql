/*
 * The optional host index (schema/host-index/sqlite): no row when no index has that name; else
 * its definition as SQLite stored it (a CREATE INDEX's text, less IF NOT EXISTS) and whether
 * that is the package's own statement, so a same-named index of another definition is
 * reported, never replaced. The literal is the script's statement as stored: change one,
 * change both (test/host-index.test.ts finds the package's index 'present' only when they agree).
 * `previous`: the package's own statement before the prefilter read a BLOB as its text (a
 * review, 2026-12): that index serves no statement now, so it is dropped and built again.
 * The name compared COLLATE NOCASE, as SQLite resolves it (probe_store_tables.sql).
 */
/* @returns maybe-one */
/* @name observeHostIndex */
SELECT m.sql AS "definition!",
       m.sql = 'CREATE INDEX idx_messages_subagent_candidates ON task_session_messages (created_at)' || char(10)
               || '  WHERE ((CAST(metadata AS TEXT) GLOB ''*_task*'') > 0)' AS "ours!::bigint",
       m.sql = 'CREATE INDEX idx_messages_subagent_candidates ON task_session_messages (created_at)' || char(10)
               || '  WHERE ((metadata GLOB ''*_task*'') > 0)' AS "previous!::bigint"
  FROM sqlite_schema AS m
 WHERE m.type = 'index' AND m.name = 'idx_messages_subagent_candidates' COLLATE NOCASE;
