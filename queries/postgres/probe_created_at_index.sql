/*
 * Whether the window walk can run (issue 32 item 5): a valid btree index on
 * task_session_messages whose first column is created_at and that covers every row (no
 * predicate). next_backfill_window.sql finds each window's edges with it, and
 * backfill_window_contexts.sql reads each window through it. The host's DDL has one
 * (idx_messages_created_at); a host without one is walked by session instead, which needs only
 * the (task_session_id, …) index the host's own queries use (docs/migrations.md). The table is
 * the one the statements resolve (to_regclass with the connection's search_path); a partitioned
 * table's index is its parent's.
 */
/* @returns one */
/* @name probeCreatedAtIndex */
SELECT EXISTS (
  SELECT 1
    FROM pg_catalog.pg_index AS i
    JOIN pg_catalog.pg_class AS c ON c.oid = i.indexrelid
    JOIN pg_catalog.pg_am AS am ON am.oid = c.relam
    JOIN pg_catalog.pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
   WHERE i.indrelid = to_regclass('task_session_messages')
     AND am.amname = 'btree'
     AND a.attname = 'created_at'
     AND i.indpred IS NULL
     AND i.indisvalid
     AND i.indisready
) AS "present!";
