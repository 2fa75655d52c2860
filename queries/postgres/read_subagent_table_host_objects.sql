/*
 * What a host added to task_session_subagents: columns that are not the package's, and
 * indexes and triggers on the table that the package's DDL does not create (constraint-backed
 * indexes are the table's keys, not additions). SQLite's twin is read before its AC-33
 * rebuild, which drops and re-creates the table (issue #16 item 6). On PostgreSQL the upgrade
 * is in place (schema/postgres/upgrade/001) and keeps every one of them — the only index it
 * drops is a unique one on the pre-amendment two-column key, which AC-33 requires gone; the
 * runner does not need this list, and test/migrations-host-additions.test.ts reads it to show
 * the upgrade kept what the host added. Definitions are PostgreSQL's own.
 */
/* @returns many */
/* @name readSubagentTableHostObjects */
WITH rel AS (
  SELECT to_regclass('task_session_subagents') AS oid
)
SELECT o.kind AS "kind!", o.name AS "name!", o.definition
  FROM (SELECT 'column' AS kind, a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS definition, a.attnum::bigint AS position
          FROM pg_attribute AS a JOIN rel ON a.attrelid = rel.oid
         WHERE a.attnum > 0 AND NOT a.attisdropped
           AND a.attname NOT IN ({{column_literals()}})
        UNION ALL
        SELECT 'index', c.relname::text, pg_get_indexdef(i.indexrelid), c.oid::bigint
          FROM pg_index AS i JOIN rel ON i.indrelid = rel.oid JOIN pg_class AS c ON c.oid = i.indexrelid
         WHERE NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conindid = i.indexrelid)
           AND c.relname NOT IN ('idx_subagents_session_id', 'idx_subagents_task_id', 'idx_subagents_turn_id', 'idx_subagents_observed_at')
        UNION ALL
        SELECT 'trigger', t.tgname::text, pg_get_triggerdef(t.oid), t.oid::bigint
          FROM pg_trigger AS t JOIN rel ON t.tgrelid = rel.oid
         WHERE NOT t.tgisinternal) AS o
 ORDER BY o.kind, o.position;
