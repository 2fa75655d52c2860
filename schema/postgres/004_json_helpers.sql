-- The JSON validity test every statement that reads message metadata asks before casting
-- (queries/postgres/fragments/valid_jsonb.sql), so one malformed document (NULL, '', 'null',
-- '{broken', a '\u0000' escape PostgreSQL's jsonb rejects) is treated as '{}' instead of
-- aborting the statement (AC-23b, DESIGN §2). The statements call pg_input_is_valid(text,
-- 'jsonb'): on PostgreSQL 16 and later the built-in, in pg_catalog, so nothing is created here
-- and no function of another role's is ever in the way (issue 30 item 8: a planted
-- subagent_context_is_json, the helper 0.2 created, is no longer called at all).
-- PostgreSQL 15 lacks the built-in: this creates the package's own function of that name and
-- signature, with the built-in's answer for 'jsonb' (false for any other type name):
-- - the exception block catches any failure to parse, a too-deep document included; it costs
--   a subtransaction per call, which is why the statements call it only for rows that passed a
--   cheap text prefilter (the few subagent messages);
-- - PARALLEL RESTRICTED, not SAFE: a parallel worker cannot start the subtransaction the
--   exception block needs ("cannot start subtransactions during a parallel operation");
-- - Trust (issue #16 item 3): it runs as whoever calls it, so the package runs only the one it
--   created. It is created schema-qualified in the schema task_session_subagents lives in
--   (current_schema() before the table exists), with its search_path pinned;
--   queries/postgres/observe_json_helper.sql recognises it by what another role cannot forge
--   (owner, schema, body hash, language, volatility, settings; the comment is only for people),
--   and the runner refuses to create over or run anything else. The probe holds the md5 of the
--   body between the $fn$ quotes: change one, change both.
DO $do$
DECLARE
  home name := COALESCE((SELECT n.nspname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
                          WHERE c.oid = to_regclass('task_session_subagents')),
                        current_schema());
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    RETURN; -- the built-in answers
  END IF;
  IF home IS NULL THEN
    RAISE EXCEPTION 'no schema to create pg_input_is_valid(text, text) in: search_path names no existing schema';
  END IF;
  EXECUTE format($ddl$
CREATE OR REPLACE FUNCTION %I.pg_input_is_valid(doc text, type text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
  IF type <> 'jsonb' THEN
    RETURN false;
  END IF;
  PERFORM doc::jsonb;
  RETURN true;
EXCEPTION WHEN others THEN
  RETURN false;
END
$fn$
$ddl$, home);
  EXECUTE format($ddl$COMMENT ON FUNCTION %I.pg_input_is_valid(text, text) IS 'subagent-context json helper v4 (PostgreSQL 15)'$ddl$, home);
END
$do$;
