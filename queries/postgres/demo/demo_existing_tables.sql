/*
 * DEMO ONLY — which of the tables the demo creates already exist in the current schema. The
 * demo builds its own history from scratch and refuses to touch a database that already
 * holds any of them, so it can never write demo rows into a real host's store.
 */
/* @name demoExistingTables */
SELECT t.table_name::text AS "name!"
  FROM information_schema.tables AS t
 WHERE t.table_schema = current_schema()
   AND t.table_name IN ('task_sessions', 'task_session_messages', 'task_session_subagents', 'kandev_meta')
 ORDER BY 1;
