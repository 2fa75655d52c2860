// createPostgresStore: the package's store on a host-owned node-postgres pool.
import type pg from 'pg';
import { createStore } from '../store.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import { checkPostgresHealth } from './health.js';
import { runPostgresMigrations } from './migrations.js';
import { createPostgresReader } from './reader.js';
import { createPostgresWriter } from './writer.js';

export function createPostgresStore(pool: pg.Pool, options?: StoreOptions): SubagentContextStore {
  return createStore(
    {
      dialect: 'postgres',
      writer: createPostgresWriter(pool),
      reader: createPostgresReader(pool),
      runMigrations: (ctx) => runPostgresMigrations(pool, ctx),
      checkHealth: (ctx) => checkPostgresHealth(pool, ctx),
    },
    options,
  );
}
