/*
 * pg_input_is_valid(text, text) as an unqualified call resolves it through search_path: the
 * function the backfill and the health statements run (queries/postgres/fragments/valid_jsonb.sql;
 * issue #16 item 3: never run what the package did not create). The migration runner reads it
 * with the table's shape (observe_subagent_table_shape.sql); checkHealth() reads it alone,
 * before its anti-joins call the function.
 *   'current'   PostgreSQL's built-in (pg_catalog, PostgreSQL 16 and later: nothing to create),
 *               or on PostgreSQL 15 the package's own, exactly schema/postgres/004's definition:
 *               the md5 of its body, plpgsql, IMMUTABLE, STRICT, PARALLEL RESTRICTED, SECURITY
 *               INVOKER, search_path pinned;
 *   'absent'    none resolves (PostgreSQL 15 before the first migrate): ensure_json_helpers
 *               creates it;
 *   'untrusted' anything else outside pg_catalog whose owner is neither the current user, the
 *               table's owner nor a superuser, or that lives outside the schema
 *               task_session_subagents lives in (an earlier schema on search_path shadows the
 *               package's, or a search_path that names pg_catalog after a schema another role
 *               can write shadows the built-in) — another role planted it. Nothing creates over
 *               it or runs it; json_helper_found names it;
 *   'outdated'  trusted but another definition: replaced.
 * The comment is not evidence: any role can write the same one. Owner and schema are.
 */
/* @returns one */
/* @name observeJsonHelper */
WITH home AS (
  -- Where the package's objects live (the table's schema, or before the table exists the
  -- schema it would be created in), and who may own them besides the current user.
  SELECT COALESCE((SELECT c.relnamespace FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')),
                  (SELECT n.oid FROM pg_namespace AS n WHERE n.nspname = current_schema())) AS nsp,
         (SELECT c.relowner FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')) AS table_owner
), helper AS (
  SELECT p.*, n.nspname, r.rolname,
         p.pronamespace = 'pg_catalog'::regnamespace AS builtin,
         COALESCE(p.pronamespace = home.nsp
                    AND (r.rolsuper OR r.rolname = current_user OR p.proowner = home.table_owner), false) AS trusted
    FROM pg_proc AS p
    JOIN pg_namespace AS n ON n.oid = p.pronamespace
    JOIN pg_roles AS r ON r.oid = p.proowner
   CROSS JOIN home
   WHERE p.oid = to_regprocedure('pg_input_is_valid(text, text)')
)
SELECT
  COALESCE((SELECT CASE
                      WHEN h.builtin THEN 'current'
                      WHEN NOT h.trusted THEN 'untrusted'
                      WHEN md5(h.prosrc) = '63afec14d3332b6b3fdd2ee6823be657'
                       AND h.prolang = (SELECT l.oid FROM pg_language AS l WHERE l.lanname = 'plpgsql')
                       AND h.provolatile = 'i' AND h.proparallel = 'r' AND h.proisstrict AND NOT h.prosecdef
                       AND h.prorettype = 'pg_catalog.bool'::regtype AND NOT h.proretset
                       AND h.proconfig = ARRAY['search_path=pg_catalog, pg_temp'] THEN 'current'
                      ELSE 'outdated' END
               FROM helper AS h), 'absent') AS "json_helper_state!",
  (SELECT format('%I.%s owned by role %I', h.nspname, 'pg_input_is_valid(text, text)', h.rolname)
     FROM helper AS h) AS "json_helper_found?";
