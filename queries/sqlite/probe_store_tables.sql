/*
 * Which of the tables the package reads exist, so a missing table is reported by name
 * ("run migrate first", "not a host database") instead of surfacing as a driver error in
 * the middle of a health check or a migration.
 */
/* @returns one */
/* @name probeStoreTables */
SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_sessions') AS "task_sessions!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_messages') AS "task_session_messages!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'kandev_meta') AS "kandev_meta!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_subagents') AS "task_session_subagents!::bigint";
