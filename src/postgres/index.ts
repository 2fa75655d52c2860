// Package entry `subagent-context/postgres` (DESIGN §8): the PostgreSQL store and every
// product statement of queries/postgres/ as its generated typed function (pgtyped's types,
// precompiled to a PostgresPreparedQuery: `.run(params, poolOrClient)`, no runtime
// dependency), with its I…Params / I…Result types, under the same names as
// `subagent-context/sqlite`. Their rows are raw; toSubagentContextRow() normalizes a listed
// row. The generated index is re-exported whole, so a statement added to queries/postgres/ is exported by regeneration alone; the demo's
// statements have an index of their own and are not exported. The schema scripts
// (packageSchema, upgradeSchema, hostSchema, legacySchema) come with it: the DDL the
// migrations apply, readable by a host's DBA or its own migration tool.
export { createPostgresStore } from './store.js';
export { toSubagentContextRow } from './normalized-row.js';
export { PostgresPreparedQuery, type PostgresQueryRunner } from './prepared-query.js';
export type { PostgresPool, PostgresPoolClient, PostgresQueryable, PostgresQueryConfig, PostgresQueryResult } from './connection.js';
export * from '../../generated/postgres/index.js';
