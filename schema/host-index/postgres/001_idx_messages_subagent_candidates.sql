-- Optional (DESIGN §3: an index on a host table only as a documented, idempotent, optional
-- step; docs/host-index.md). Created only when the host asks — store.ensureHostIndex() or
-- `subagent-context host-index` — never by runMigrations().
-- One entry per message whose metadata passes the package's text prefilter (the subagent
-- candidates), keyed by created_at. Partial, with the statements' prefilter term verbatim as
-- its predicate (queries/postgres/fragments/subagent_prefilter.sql applied to metadata;
-- test/host-index.test.ts pins the two together): PostgreSQL uses a partial index only for a
-- query whose WHERE implies its predicate.
-- CONCURRENTLY: the host's writers go on while it builds (a plain CREATE INDEX would block
-- every message insert for the whole build). It cannot run in a transaction, so this script is
-- one statement, sent on its own; a build that fails leaves an INVALID index, which
-- ensureHostIndex() drops (drop_unfinished_host_index.sql) and builds again.
-- metadata::text: on the TEXT column of schema/host/postgres a no-op the parser drops (the stored
-- predicate is strpos(metadata, …), as it was before the cast); on a jsonb or json column, the
-- column's text (jsonb's output function is immutable, so it may stand in a predicate), which
-- the statements' prefilter reads the same way, so the index serves them there too.
CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_messages_subagent_candidates ON task_session_messages (created_at)
  WHERE (strpos(metadata::text, 'subagent_task') > 0);
