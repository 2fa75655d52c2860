/*
 * The optional host index of an earlier version (observe_host_index.sql's `previous`), dropped
 * in the transaction that builds the current one (store.ensureHostIndex(): outcome 'rebuilt').
 */
/* @returns exec */
/* @name dropHostIndex */
DROP INDEX IF EXISTS idx_messages_subagent_candidates;
