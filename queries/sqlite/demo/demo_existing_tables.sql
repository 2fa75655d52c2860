/*
 * DEMO ONLY — which of the tables the demo creates already exist. The demo builds its own
 * history from scratch and refuses to touch a database that already holds any of them, so
 * it can never write demo rows into a real host's store.
 */
/* @name demoExistingTables */
SELECT m.name AS "name!"
  FROM sqlite_master AS m
 WHERE m.type = 'table'
   AND m.name IN ('task_sessions', 'task_session_messages', 'task_session_subagents', 'kandev_meta')
 ORDER BY m.name;
