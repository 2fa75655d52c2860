// Package entry `subagent-context/postgres` (DESIGN §8): the PostgreSQL store and every
// product statement of queries/postgres/ as its pgtyped function (a @pgtyped/runtime
// PreparedQuery: `.run(params, poolOrClient)`), with its I…Params / I…Result types, under
// the same names as `subagent-context/sqlite`. The generated index is re-exported whole, so a
// statement added to queries/postgres/ is exported by regeneration alone; the demo's
// statements have an index of their own and are not exported. The schema scripts
// (packageSchema, upgradeSchema, hostSchema, legacySchema) come with it: the DDL the
// migrations apply, readable by a host's DBA or its own migration tool.
export { createPostgresStore } from './store.js';
export type { PostgresPool, PostgresPoolClient, PostgresQueryable, PostgresQueryConfig, PostgresQueryResult } from './connection.js';
export * from '../../generated/postgres/index.js';
