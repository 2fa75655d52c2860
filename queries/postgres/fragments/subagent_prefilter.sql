/*
 * subagent_prefilter(x): the text prefilter, a superset of "is a subagent message" for what
 * hosts write (backfill_subagent_contexts.sql says why). x is read as text, whatever the host's
 * column type (docs/host-tables.md): a no-op on TEXT, which the parser drops, so the term and the
 * optional host index's predicate stay strpos(metadata, …) there; a jsonb or json column (a
 * PostgreSQL-native host's) is read as its text, where strpos(jsonb) does not exist (42883 on
 * every boot before: a review, 2026-12-08).
 * @anchor strpos(
 */
(strpos(x::text, 'subagent_task') > 0)
