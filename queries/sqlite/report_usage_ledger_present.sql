/*
 * REPORT — whether the usage ledger's two tables exist, read inside the report's snapshot
 * before the ledger statements run: a read-only report never creates a table, and a store the
 * ledger's migration has not reached simply has no ledger section.
 */
/* @returns one */
/* @name reportUsageLedgerPresent */
SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_subagent_usage')
   AND EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'task_session_parent_usage') AS "present!::bigint";
