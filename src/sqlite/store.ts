// createSqliteStore: the package's store on a host-owned better-sqlite3 connection.
import type { Database } from 'better-sqlite3';
import { createStore } from '../store.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import type { SqliteConnection } from './connection.js';
import { checkSqliteHealth } from './health.js';
import { ensureSqliteHostIndex } from './host-index.js';
import { createSqliteHostTables } from './host-tables.js';
import { runSqliteMigrations } from './migrations.js';
import { createSqliteReader } from './reader.js';
import { sqliteReport } from './report.js';
import { createSqliteWriter } from './writer.js';

/** `connection` is typed structurally so a host's build never needs better-sqlite3's types
 * through ours (./connection.ts); at run time it is the host's better-sqlite3 `Database`. */
export function createSqliteStore(connection: SqliteConnection, options?: StoreOptions): SubagentContextStore<SqliteConnection> {
  const db = connection as Database;
  return createStore<SqliteConnection>(
    {
      dialect: 'sqlite',
      writer: createSqliteWriter(db),
      reader: createSqliteReader(db),
      runMigrations: (ctx, options) => runSqliteMigrations(db, ctx, {}, options),
      checkHealth: (ctx) => checkSqliteHealth(db, ctx),
      ensureHostIndex: () => ensureSqliteHostIndex(db),
      createHostTables: () => createSqliteHostTables(db),
      report: (ctx, options) => sqliteReport(db, ctx, options),
    },
    options,
  );
}
