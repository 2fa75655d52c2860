-- The JSON validity test every statement that reads message metadata asks before casting
-- (queries/postgres/fragments/valid_jsonb.sql), so one malformed document (NULL, '', 'null',
-- '{broken', a '\u0000' escape PostgreSQL's jsonb rejects) is treated as '{}' instead of
-- aborting the statement (AC-23b, DESIGN §2). The statements call pg_input_is_valid(text,
-- 'jsonb') with their transaction's search_path pinned to pg_catalog first
-- (queries/postgres/set_local_search_path.sql): on PostgreSQL 16 and later the built-in, so
-- nothing is created here and no function of another role's is ever in the way.
-- PostgreSQL 15 lacks the built-in: this creates the package's own function of that name and
-- signature, with the built-in's answer for 'jsonb' (false for any other type name), in a
-- schema of the package's own, subagent_context, which the pinned search_path names right
-- after pg_catalog (issue 30 items 7 and 8: a function another role plants under that name on
-- the session's search_path is never reached, so it neither runs nor stops the package):
-- - the schema is created if absent (that needs CREATE on the database: a DBA without it to
--   give can run `CREATE SCHEMA subagent_context AUTHORIZATION <the operator's role>`) and
--   opened to PUBLIC for USAGE only, so a role that only checks health finds the helper;
--   the package keeps nothing else there, so table names resolve as before;
-- - the exception block catches any failure to parse, a too-deep document included; it costs
--   a subtransaction per call, which is why the statements call it only for rows that passed a
--   cheap text prefilter (the few subagent messages);
-- - PARALLEL RESTRICTED, not SAFE: a parallel worker cannot start the subtransaction the
--   exception block needs ("cannot start subtransactions during a parallel operation");
-- - Trust (issue #16 item 3): it runs as whoever calls it, so the package runs only the one it
--   created, with its search_path pinned; queries/postgres/observe_json_helper.sql recognises
--   it by what another role cannot forge (the schema's and the function's owner, body hash,
--   language, volatility, settings; the comment is only for people), and the runner refuses
--   to create in a subagent_context another role owns. The probe holds the md5 of the body
--   between the $fn$ quotes: change one, change both.
-- - The previous footprint (0.3 before this change) had the same function in the schema of
--   task_session_subagents: it is dropped when it is exactly the package's (that body, owned
--   by a role the probe trusts) and nothing depends on it; anything else there is left alone.
DO $do$
DECLARE
  home oid := (SELECT c.relnamespace FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents'));
  own oid;
  earlier text;
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    RETURN; -- the built-in answers
  END IF;
  -- CREATE SCHEMA checks the database privilege before IF NOT EXISTS: asked only when absent.
  IF to_regnamespace('subagent_context') IS NULL THEN
    IF NOT has_database_privilege(current_database(), 'CREATE') THEN
      RAISE EXCEPTION 'PostgreSQL 15: the JSON helper needs the schema subagent_context, and role % may not create a schema in database %', current_user, current_database()
        USING HINT = format('As a role that may: CREATE SCHEMA subagent_context AUTHORIZATION %I', current_user);
    END IF;
    CREATE SCHEMA subagent_context;
  END IF;
  own := to_regnamespace('subagent_context');
  GRANT USAGE ON SCHEMA subagent_context TO PUBLIC;
  COMMENT ON SCHEMA subagent_context IS 'subagent-context: the JSON helper PostgreSQL 15 needs; nothing else';
  CREATE OR REPLACE FUNCTION subagent_context.pg_input_is_valid(doc text, type text) RETURNS boolean
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
$fn$;
  COMMENT ON FUNCTION subagent_context.pg_input_is_valid(text, text) IS 'subagent-context json helper v5 (PostgreSQL 15)';

  SELECT format('%I.pg_input_is_valid(text, text)', n.nspname) INTO earlier
    FROM pg_proc AS p
    JOIN pg_namespace AS n ON n.oid = p.pronamespace
    JOIN pg_roles AS r ON r.oid = p.proowner
   WHERE p.pronamespace = home AND home <> own
     AND p.proname = 'pg_input_is_valid' AND p.pronargs = 2
     AND p.proargtypes[0] = 'pg_catalog.text'::regtype AND p.proargtypes[1] = 'pg_catalog.text'::regtype
     AND md5(p.prosrc) = '63afec14d3332b6b3fdd2ee6823be657'
     AND p.prolang = (SELECT l.oid FROM pg_language AS l WHERE l.lanname = 'plpgsql')
     AND (r.rolsuper OR r.rolname = current_user
          OR p.proowner = (SELECT c.relowner FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')));
  IF earlier IS NOT NULL THEN
    BEGIN
      EXECUTE 'DROP FUNCTION ' || earlier;
    EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
      NULL; -- a host object uses it, or another trusted role owns it: left, and no longer called
    END;
  END IF;
END
$do$;
