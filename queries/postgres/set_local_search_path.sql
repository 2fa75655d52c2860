/*
 * Pins this transaction's search_path for the statements that test JSON validity
 * (queries/postgres/fragments/valid_jsonb.sql; issue 30 items 7 and 8): `SET LOCAL
 * search_path`, written as set_config(…, is_local => true) because the value is computed.
 *   PostgreSQL 16 and later: pg_catalog, then the session's search_path — the built-in
 *     pg_input_is_valid answers even where a host's search_path names pg_catalog after a
 *     schema other roles can write;
 *   PostgreSQL 15: pg_catalog, subagent_context, then the session's — the package's own
 *     pg_input_is_valid (schema/postgres/004_json_helpers.sql) in the schema the package owns,
 *     ahead of any function of that name another role put on the session's search_path.
 * Tables still resolve through the session's search_path (pg_catalog holds none of the
 * package's names; subagent_context holds only the helper), so the statements read the same
 * tables as before. The runners pin it at the start of the statement's transaction, after
 * the helper's probe: src/postgres/migrations.ts (the backfill's mark and each chunk) and
 * src/postgres/health.ts (the two anti-joins, each in a transaction of its own). A read-only
 * transaction may set it, so a hot standby serves health as before; it is transaction-scoped,
 * so a transaction-mode pooler hands the connection on unchanged, and COMMIT or ROLLBACK
 * restores the connection's own search_path.
 * Every name here is qualified: this statement itself runs under the session's search_path.
 */
/* @returns one */
/* @name setLocalSearchPath */
SELECT pg_catalog.set_config(
         'search_path',
         CASE WHEN pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 160000
              THEN 'pg_catalog' ELSE 'pg_catalog, subagent_context' END
         OPERATOR(pg_catalog.||)
         CASE WHEN pg_catalog.current_setting('search_path') OPERATOR(pg_catalog.=) '' THEN ''
              ELSE ', ' OPERATOR(pg_catalog.||) pg_catalog.current_setting('search_path') END,
         true) AS "search_path!";
