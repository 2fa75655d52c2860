// createSqliteStore: the package's store on a host-owned better-sqlite3 connection.
import type { Database } from 'better-sqlite3';
import { createStore } from '../store.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import { checkSqliteHealth } from './health.js';
import { runSqliteMigrations } from './migrations.js';
import { createSqliteReader } from './reader.js';
import { createSqliteWriter } from './writer.js';

export function createSqliteStore(db: Database, options?: StoreOptions): SubagentContextStore<Database> {
  return createStore<Database>(
    {
      dialect: 'sqlite',
      writer: createSqliteWriter(db),
      reader: createSqliteReader(db),
      runMigrations: (ctx) => runSqliteMigrations(db, ctx),
      checkHealth: (ctx) => checkSqliteHealth(db, ctx),
    },
    options,
  );
}
