/*
 * REPORT — whether the usage ledger's two tables exist and this role may read them, asked
 * inside the report's snapshot before the ledger statements run (a failed statement would end
 * the snapshot's transaction): a read-only report never creates a table, a store the ledger's
 * migration has not reached has no ledger, and a role granted SELECT on the report's four
 * tables only (docs/deploying.md) gets the report without the ledger rather than an error.
 * to_regclass resolves the names through the search_path, exactly as the ledger statements'
 * unqualified names do; has_table_privilege of a missing table (NULL) is NULL, read as false.
 */
/* @returns one */
/* @name reportUsageLedgerPresent */
SELECT COALESCE(has_table_privilege(to_regclass('task_session_subagent_usage'), 'SELECT'), false)
   AND COALESCE(has_table_privilege(to_regclass('task_session_parent_usage'), 'SELECT'), false) AS "present!";
