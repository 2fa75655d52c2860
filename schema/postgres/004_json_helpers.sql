-- subagent_context_is_json(doc): true when doc parses as jsonb. Every statement that
-- reads message metadata asks it first, so one malformed document (NULL, '', 'null',
-- '{broken') is treated as '{}' instead of aborting the statement (AC-23b, DESIGN §2).
-- PostgreSQL 16+ has pg_input_is_valid, which costs no subtransaction; older servers
-- (15 is supported) fall back to a PL/pgSQL cast guarded by an exception block. The
-- statements that call it prefilter on a cheap text match first, so the fallback runs
-- only for the few rows that could be subagent messages.
DO $do$
BEGIN
  IF current_setting('server_version_num')::int >= 160000 THEN
    EXECUTE $f$
      CREATE OR REPLACE FUNCTION subagent_context_is_json(doc text) RETURNS boolean
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $b$ SELECT doc IS NOT NULL AND pg_input_is_valid(doc, 'jsonb') $b$
    $f$;
  ELSE
    EXECUTE $f$
      CREATE OR REPLACE FUNCTION subagent_context_is_json(doc text) RETURNS boolean
      LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
      AS $b$
      BEGIN
        IF doc IS NULL THEN RETURN false; END IF;
        PERFORM doc::jsonb;
        RETURN true;
      EXCEPTION WHEN others THEN
        RETURN false;
      END
      $b$
    $f$;
  END IF;
END
$do$;
