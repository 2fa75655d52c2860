// createPostgresStore: the package's store on a host-owned node-postgres pool.
import type pg from 'pg';
import { createStore } from '../store.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import type { PostgresPool } from './connection.js';
import { checkPostgresHealth } from './health.js';
import { runPostgresMigrations } from './migrations.js';
import { createPostgresReader } from './reader.js';
import { postgresReport } from './report.js';
import { createPostgresWriter } from './writer.js';

/** `connection` is typed structurally so a host's build never needs pg's types through ours
 * (./connection.ts); at run time it is the host's node-postgres `Pool`. */
export function createPostgresStore(connection: PostgresPool, options?: StoreOptions): SubagentContextStore {
  const pool = connection as pg.Pool;
  return createStore(
    {
      dialect: 'postgres',
      writer: createPostgresWriter(pool),
      reader: createPostgresReader(pool),
      runMigrations: (ctx) => runPostgresMigrations(pool, ctx),
      checkHealth: (ctx) => checkPostgresHealth(pool, ctx),
      report: (ctx, options) => postgresReport(pool, ctx, options),
    },
    options,
  );
}
