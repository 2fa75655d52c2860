-- Optional (DESIGN §3: an index on a host table only as a documented, idempotent, optional
-- step; docs/host-index.md). Created only when the host asks — store.ensureHostIndex() or
-- `subagent-context host-index` — never by runMigrations().
-- One entry per message whose metadata passes the package's text prefilter (the subagent
-- candidates: a few per thousand messages), keyed by created_at. The health check's anti-joins
-- then read the window's candidates instead of every message in the window. Partial, with the
-- statements' prefilter term verbatim as its WHERE (queries/sqlite/fragments/subagent_prefilter.sql
-- applied to metadata; test/host-index.test.ts pins the two together): SQLite uses a partial
-- index only for a query whose WHERE holds that same term.
-- Building it reads the whole table once, under SQLite's write lock (BENCHMARKS.md).
-- The term reads a BLOB as its text since 2026-12; the index of the earlier term (a plain
-- GLOB, which skipped BLOB metadata) is dropped and built again (observe_host_index.sql).
CREATE INDEX IF NOT EXISTS idx_messages_subagent_candidates ON task_session_messages (created_at)
  WHERE ((CAST(metadata AS TEXT) GLOB '*_task*') > 0);
