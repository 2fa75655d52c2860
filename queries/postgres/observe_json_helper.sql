/*
 * The pg_input_is_valid(text, text) the backfill and the health statements call
 * (queries/postgres/fragments/valid_jsonb.sql) under the search_path they pin
 * (queries/postgres/set_local_search_path.sql: pg_catalog, on 15 subagent_context, then the
 * session's), judged before anything calls it (issue #16 item 3: never run what the package
 * did not create). The migration runner reads it with the table's shape
 * (observe_subagent_table_shape.sql), under the lock of each backfill transaction again;
 * checkHealth() reads it alone, before its anti-joins call the function.
 *   'current'   PostgreSQL 16 and later: the built-in, which the pinned path reaches first
 *               whatever the session's search_path holds; PostgreSQL 15: the package's own
 *               in subagent_context, exactly schema/postgres/004's definition (the md5 of its
 *               body, plpgsql, IMMUTABLE, STRICT, PARALLEL RESTRICTED, SECURITY INVOKER,
 *               search_path pinned);
 *   'absent'    PostgreSQL 15, the schema subagent_context or the function in it missing
 *               (before the first migrate): ensure_json_helpers creates them. Nothing calls
 *               it meanwhile: with nothing of the package's in that place, the call would
 *               fall through to the session's search_path;
 *   'untrusted' PostgreSQL 15, subagent_context or the function in it owned by a role that is
 *               neither the current user, the table's owner nor a superuser (a role with
 *               CREATE on the database made the schema first), or a schema the current role
 *               may not use (search_path skips it silently). Nothing creates over it or runs
 *               it; json_helper_found names it;
 *   'outdated'  the package's, another definition: replaced.
 * A function of that name on the session's search_path is not looked at: it comes after
 * pg_catalog and subagent_context on the pinned path and is never reached.
 * The comment is not evidence: any role can write the same one. Owners are.
 */
/* @returns one */
/* @name observeJsonHelper */
WITH home AS (
  -- Who may own the package's objects besides the current user and a superuser.
  SELECT (SELECT c.relowner FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')) AS table_owner
), own AS (
  SELECT n.oid, r.rolname,
         COALESCE(r.rolsuper OR r.rolname = current_user OR n.nspowner = home.table_owner, false) AS trusted,
         has_schema_privilege(n.oid, 'USAGE') AS usable
    FROM pg_namespace AS n
    JOIN pg_roles AS r ON r.oid = n.nspowner
   CROSS JOIN home
   WHERE n.nspname = 'subagent_context'
), helper AS (
  SELECT p.*, r.rolname,
         COALESCE(r.rolsuper OR r.rolname = current_user OR p.proowner = home.table_owner, false) AS trusted
    FROM pg_proc AS p
    JOIN own ON own.oid = p.pronamespace
    JOIN pg_roles AS r ON r.oid = p.proowner
   CROSS JOIN home
   WHERE p.proname = 'pg_input_is_valid' AND p.pronargs = 2
     AND p.proargtypes[0] = 'pg_catalog.text'::regtype AND p.proargtypes[1] = 'pg_catalog.text'::regtype
), judged AS (
  SELECT CASE
           WHEN current_setting('server_version_num')::int >= 160000 THEN 'current'
           WHEN o.oid IS NULL THEN 'absent'
           WHEN NOT o.trusted OR NOT o.usable THEN 'untrusted'
           WHEN h.oid IS NULL THEN 'absent'
           WHEN NOT h.trusted THEN 'untrusted'
           WHEN md5(h.prosrc) = '63afec14d3332b6b3fdd2ee6823be657'
            AND h.prolang = (SELECT l.oid FROM pg_language AS l WHERE l.lanname = 'plpgsql')
            AND h.provolatile = 'i' AND h.proparallel = 'r' AND h.proisstrict AND NOT h.prosecdef
            AND h.prorettype = 'pg_catalog.bool'::regtype AND NOT h.proretset
            AND h.proconfig = ARRAY['search_path=pg_catalog, pg_temp'] THEN 'current'
           ELSE 'outdated' END AS state,
         CASE
           WHEN current_setting('server_version_num')::int >= 160000 THEN 'pg_catalog.pg_input_is_valid(text, text)'
           WHEN o.oid IS NULL THEN NULL
           WHEN NOT o.trusted THEN format('schema subagent_context owned by role %I', o.rolname)
           WHEN NOT o.usable THEN format('schema subagent_context, which role %I may not use', current_user)
           WHEN h.oid IS NULL THEN NULL
           ELSE format('subagent_context.pg_input_is_valid(text, text) owned by role %I', h.rolname) END AS found
    FROM (SELECT 1) AS one
    LEFT JOIN own AS o ON true
    LEFT JOIN helper AS h ON true
)
SELECT state AS "json_helper_state!", found AS "json_helper_found?" FROM judged;
