/*
 * DEMO ONLY — every object a database already holds that someone made: tables (partitioned
 * too), views, materialized views, sequences, foreign tables and functions, in any schema but
 * the system's, objects an extension installed aside (a managed server's defaults are not the
 * user's data). The demo needs an EMPTY database: it refuses any with one of these, so it can
 * never write demo rows beside a real host's, or anyone's.
 */
/* @returns many */
/* @name demoExistingObjects */
SELECT o.kind AS "kind!", o.name AS "name!"
  FROM (SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'foreign table' ELSE 'table' END AS kind,
               format('%I.%I', n.nspname, c.relname) AS name, c.oid AS oid, 'pg_catalog.pg_class'::regclass AS catalog
          FROM pg_catalog.pg_class AS c
          JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
         WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
           AND n.nspname NOT IN ('pg_catalog', 'information_schema')
           AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
        UNION ALL
        SELECT 'function', format('%I.%I', n.nspname, p.proname), p.oid, 'pg_catalog.pg_proc'::regclass
          FROM pg_catalog.pg_proc AS p
          JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
         WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
           AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)') AS o
 WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend AS d WHERE d.classid = o.catalog AND d.objid = o.oid AND d.deptype = 'e')
 ORDER BY o.name, o.kind;
