/*
 * REPORT — whether the usage ledger's two tables exist, read inside the report's snapshot
 * before the ledger statements run: a read-only report never creates a table, and a store the
 * ledger's migration has not reached simply has no ledger section.
 * Names compared COLLATE NOCASE, as SQLite resolves them (probe_store_tables.sql).
 */
/* @returns one */
/* @name reportUsageLedgerPresent */
SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_subagent_usage' COLLATE NOCASE)
   AND EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_parent_usage' COLLATE NOCASE) AS "present!::bigint";
