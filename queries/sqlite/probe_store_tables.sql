/*
 * Which of the tables the package reads exist, so a missing table is reported by name
 * ("run migrate first", "not a host database") instead of surfacing as a driver error in
 * the middle of a health check or a migration.
 * Names compared COLLATE NOCASE, as SQLite resolves them: a host's `CREATE TABLE Task_Sessions`
 * is the table every statement reads, and was reported missing (a review, 2026-12).
 */
/* @returns one */
/* @name probeStoreTables */
SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_sessions' COLLATE NOCASE) AS "task_sessions!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_messages' COLLATE NOCASE) AS "task_session_messages!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'kandev_meta' COLLATE NOCASE) AS "kandev_meta!::bigint",
       EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_subagents' COLLATE NOCASE) AS "task_session_subagents!::bigint";
