/*
 * Which of the tables the package reads exist, so a missing table is reported by name
 * ("run migrate first", "not a host database") instead of surfacing as a driver error in
 * the middle of a health check or a migration. to_regclass resolves through search_path,
 * exactly as the package's unqualified statements do.
 */
/* @returns one */
/* @name probeStoreTables */
SELECT to_regclass('task_sessions') IS NOT NULL AS "task_sessions!",
       to_regclass('task_session_messages') IS NOT NULL AS "task_session_messages!",
       to_regclass('kandev_meta') IS NOT NULL AS "kandev_meta!",
       to_regclass('task_session_subagents') IS NOT NULL AS "task_session_subagents!";
