// Package entry `subagent-context/sqlite` (DESIGN §8): the SQLite store and every product
// statement of queries/sqlite/ as its generated typed function, with its I…Params / I…Result
// types, under the same names as `subagent-context/postgres`. Their rows are raw;
// toSubagentContextRow() normalizes a listed row. The generated index is
// re-exported whole, so a statement added to queries/sqlite/ is exported by regeneration
// alone; the demo's statements have an index of their own and are not exported. The schema
// scripts (packageSchema, upgradeSchema, hostSchema, legacySchema) come with it: the DDL the
// migrations apply, readable by a host's DBA or its own migration tool.
export { createSqliteStore } from './store.js';
export { toSubagentContextRow } from './normalized-row.js';
export type { SqliteConnection, SqliteStatement } from './connection.js';
export { SqlitePreparedQuery, type SqliteBindValue, type SqliteValue } from './prepared-query.js';
export * from '../../generated/sqlite/index.js';
