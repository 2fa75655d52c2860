// createPostgresStore: the package's store on a host-owned node-postgres pool. The pool is
// wrapped once here so that every query of the reader, health and migrations carries the
// package's own type parsers, whatever the host did to `pg.types` (DESIGN §8).
import type pg from 'pg';
import { storeLogger } from '../logger.js';
import { createStore } from '../store.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import type { PostgresPool, PostgresQueryable } from './connection.js';
import { checkPostgresHealth } from './health.js';
import { ensurePostgresHostIndex } from './host-index.js';
import { createPostgresHostTables } from './host-tables.js';
import { runPostgresMigrations } from './migrations.js';
import { createStatementRunner } from './named-statement.js';
import { withPackageTypes } from './package-typed-pool.js';
import { createPostgresReader } from './reader.js';
import { postgresReport } from './report.js';
import { createPostgresWriter } from './writer.js';

/** `connection` is typed structurally so a host's build never needs pg's types through ours
 * (./connection.ts); at run time it is the host's node-postgres `Pool`. A host transaction's
 * `client` is any pg client (PoolClient or Client), also typed structurally. */
export function createPostgresStore(connection: PostgresPool, options?: StoreOptions): SubagentContextStore<PostgresQueryable> {
  const hostPool = connection as pg.Pool;
  const pool = withPackageTypes(hostPool);
  const logger = storeLogger(options);
  // One statement mode for the store's named statements (the upserts and the health check):
  // the first sign of shared server connections switches all of them to unnamed.
  const statements = createStatementRunner({
    named: options?.namedStatements !== false,
    onSwitch(err) {
      logger.info?.(
        { dialect: 'postgres', code: (err as { code?: unknown }).code },
        'prepared statements are not kept per connection here (a transaction-mode pooler?): the store uses unnamed statements from now on',
      );
    },
  });
  return createStore<PostgresQueryable>(
    {
      dialect: 'postgres',
      // The writer sets the package's types on each of its own statements (the rest is
      // transaction control, which returns no rows), so the hot path skips the wrapper.
      writer: createPostgresWriter(hostPool, { statements }),
      reader: createPostgresReader(pool),
      runMigrations: (ctx, options) => runPostgresMigrations(pool, ctx, {}, options),
      checkHealth: (ctx) => checkPostgresHealth(pool, statements, ctx),
      ensureHostIndex: () => ensurePostgresHostIndex(pool),
      createHostTables: () => createPostgresHostTables(pool),
      report: (ctx, options) => postgresReport(pool, ctx, options),
    },
    options,
  );
}
