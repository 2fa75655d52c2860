/*
 * PostgreSQL's subagent_context_is_json(text) as an unqualified call resolves it through
 * search_path: the one the backfill and the health statements would run (issue #16 item 3:
 * never run what the package did not create). The migration runner reads it with the table's
 * shape (observe_subagent_table_shape.sql); checkHealth() reads it alone, before its
 * anti-joins call the function (a separate statement because it is all health needs, and it
 * plans in a third of the shape probe's time).
 *   'absent'    none resolves: ensure_json_helpers creates it (schema/postgres/004);
 *   'untrusted' it lives outside the schema task_session_subagents lives in (an earlier
 *               schema on search_path shadows the package's), or its owner is neither the
 *               current user, the table's owner nor a superuser — another role planted it.
 *               Nothing creates over it or runs it; json_helper_found names it;
 *   'current'   trusted, and exactly schema/postgres/004's definition: the md5 of its body,
 *               plpgsql, IMMUTABLE, PARALLEL RESTRICTED, SECURITY INVOKER, search_path pinned;
 *   'outdated'  trusted but another definition (an earlier release's): replaced.
 * The comment is not evidence: any role can write the same one. Owner and schema are.
 */
/* @name observeJsonHelper */
WITH home AS (
  -- Where the package's objects live (the table's schema, or before the table exists the
  -- schema it would be created in), and who may own them besides the current user.
  SELECT COALESCE((SELECT c.relnamespace FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')),
                  (SELECT n.oid FROM pg_namespace AS n WHERE n.nspname = current_schema())) AS nsp,
         (SELECT c.relowner FROM pg_class AS c WHERE c.oid = to_regclass('task_session_subagents')) AS table_owner
), helper AS (
  SELECT p.*, n.nspname, r.rolname,
         COALESCE(p.pronamespace = home.nsp
                    AND (r.rolsuper OR r.rolname = current_user OR p.proowner = home.table_owner), false) AS trusted
    FROM pg_proc AS p
    JOIN pg_namespace AS n ON n.oid = p.pronamespace
    JOIN pg_roles AS r ON r.oid = p.proowner
   CROSS JOIN home
   WHERE p.oid = to_regprocedure('subagent_context_is_json(text)')
)
SELECT
  COALESCE((SELECT CASE
                      WHEN NOT h.trusted THEN 'untrusted'
                      WHEN md5(h.prosrc) = '15bd0ff0045e4acc3263c951d90fb9e5'
                       AND h.prolang = (SELECT l.oid FROM pg_language AS l WHERE l.lanname = 'plpgsql')
                       AND h.provolatile = 'i' AND h.proparallel = 'r' AND NOT h.prosecdef
                       AND h.prorettype = 'pg_catalog.bool'::regtype AND NOT h.proretset
                       AND h.proconfig = ARRAY['search_path=pg_catalog, pg_temp'] THEN 'current'
                      ELSE 'outdated' END
               FROM helper AS h), 'absent') AS "json_helper_state!",
  (SELECT format('%I.%s owned by role %I', h.nspname, 'subagent_context_is_json(text)', h.rolname)
     FROM helper AS h) AS "json_helper_found?";
