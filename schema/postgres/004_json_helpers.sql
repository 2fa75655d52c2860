-- subagent_context_is_json(doc): true when doc parses as jsonb. Every statement that reads
-- message metadata asks it before casting, so one malformed document (NULL, '', 'null',
-- '{broken', a '\u0000' escape PostgreSQL's jsonb rejects) is treated as '{}' instead of
-- aborting the statement (AC-23b, DESIGN §2).
-- The exception block is deliberate on every version: a document nested deeper than the
-- server's stack allows makes even pg_input_is_valid() raise "stack depth limit exceeded"
-- (a hard error, not a soft one), and one such row would otherwise fail the backfill on
-- every boot. The block costs a subtransaction per call, which is why every statement calls
-- this only for rows that passed a cheap text prefilter (the few subagent messages).
-- PARALLEL RESTRICTED, not SAFE: a parallel worker cannot start the subtransaction the
-- exception block needs ("cannot start subtransactions during a parallel operation").
--
-- Trust (issue #16 item 3): the function runs as whoever calls it — the operator, during
-- migrate and health — so the package must only ever run the one it created. It is created
-- schema-qualified in the schema task_session_subagents lives in (current_schema() before the
-- table exists), with its search_path pinned so nothing inside resolves through the caller's
-- path. queries/postgres/observe_json_helper.sql recognises it by what another role
-- cannot forge (owner, schema, body hash, language, volatility, settings; the comment is only
-- for people), and the runner refuses to create over or run anything else.
-- The probe holds the md5 of the body between the $fn$ quotes: change one, change both.
DO $do$
DECLARE
  home name := COALESCE((SELECT n.nspname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                          WHERE c.oid = to_regclass('task_session_subagents')),
                        current_schema());
BEGIN
  IF home IS NULL THEN
    RAISE EXCEPTION 'no schema to create subagent_context_is_json in: search_path names no existing schema';
  END IF;
  EXECUTE format($ddl$
CREATE OR REPLACE FUNCTION %I.subagent_context_is_json(doc text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  IF doc IS NULL THEN
    RETURN false;
  END IF;
  PERFORM doc::jsonb;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$fn$
$ddl$, home);
  EXECUTE format($ddl$COMMENT ON FUNCTION %I.subagent_context_is_json(text) IS 'subagent-context json helper v3'$ddl$, home);
END
$do$;
