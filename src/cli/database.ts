// The database a command works on: one of --sqlite FILE or --postgres URL (report, health and
// migrate fall back to SUBAGENT_CONTEXT_DB or the proxy's default store: ./default-target.ts),
// opened the way the command needs it. A SQLite file is never created (a health check or a
// migration pointed at a mistyped path must fail, not leave an empty database behind) unless
// `migrate --create-host-tables` asks for exactly that, and `health` and `report` open it
// read-only. Exported for every command that needs a database (demo too).
// Each dialect's driver is imported only when that dialect is asked for, so a usage error or
// --help answers without loading either driver.
import { existsSync, statSync } from 'node:fs';
import { maskConnectionString } from '../connection-secrets.js';
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import type { TablePresence } from '../health/queries.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import { databaseError, toCliError, usageError } from './cli-error.js';
import { loadDriver } from './driver.js';
import { needsSnapshot, snapshotOf, type Snapshot } from './sqlite-snapshot.js';

/** parseArgs options every database command accepts. */
export const DATABASE_OPTIONS = {
  sqlite: { type: 'string' },
  postgres: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

export const DATABASE_SYNOPSIS = '(--sqlite FILE | --postgres URL) [--json]';
/** report, health and migrate: without an option, SUBAGENT_CONTEXT_DB or the proxy's default store (./default-target.ts). */
export const DEFAULTED_DATABASE_SYNOPSIS = '[--sqlite FILE | --postgres URL] [--json]';

/** What --postgres takes, in any case: a URL scheme is case-insensitive, and node-postgres reads `POSTGRES://` too. */
export const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/**
 * A connection string meant for some other client (`postgresql+psycopg://…`, `mysql://…`, a
 * URL after a stray space or inside quotes, as Docker's --env-file keeps them, a libpq
 * `host=… password=…` string, a Go DSN `user:password@tcp(host)/db`) is never a SQLite file
 * name: read as one it would be printed (`no such SQLite file: …`, the password with it) and
 * even created by `import`. Refused instead, and never echoed: it may hold a password. (A file
 * whose name has `://`, `password=` or starts `name:…@` must be renamed or linked to be read.)
 */
export function looksLikeConnectionString(value: string): boolean {
  return /[a-z][a-z0-9+.-]*:\/\//i.test(value) || /password\s*=/i.test(value) || /^\W*[^\s/@:]+:[^\s/@]*@/.test(value);
}

export function databaseTarget(values: { sqlite?: string; postgres?: string }): DatabaseTarget {
  if (values.sqlite !== undefined && values.postgres !== undefined) throw usageError('give either --sqlite or --postgres, not both');
  if (values.sqlite !== undefined) {
    if (values.sqlite === '') throw usageError('--sqlite needs a file path');
    if (looksLikeConnectionString(values.sqlite))
      throw usageError(
        '--sqlite takes a SQLite file path, and this looks like a connection string (a URL, or password=…; not shown: it may hold a password): ' +
          'a PostgreSQL store is --postgres postgres://… or postgresql://…',
      );
    return { dialect: 'sqlite', file: values.sqlite };
  }
  if (values.postgres !== undefined) {
    if (!POSTGRES_URL.test(values.postgres)) throw usageError('--postgres needs a postgres:// or postgresql:// URL');
    return { dialect: 'postgres', url: values.postgres };
  }
  throw usageError('a database is required: --sqlite FILE or --postgres URL');
}

/** Where the database is, for output: the file, or the URL with every secret masked (connection-secrets.ts). */
export function describeTarget(target: DatabaseTarget): string {
  return matchDialect(target, {
    sqlite: ({ file }) => `sqlite ${file}`,
    postgres: ({ url }) => `postgres ${maskConnectionString(url)}`,
  });
}

export interface OpenDatabase {
  readonly target: DatabaseTarget;
  readonly store: SubagentContextStore;
  /** Which of the tables the package reads exist. */
  probeTables(): Promise<TablePresence>;
  close(): Promise<void>;
}

async function openSqlite(file: string, readonly: boolean, options: StoreOptions, create: boolean): Promise<OpenDatabase> {
  const exists = existsSync(file);
  if (!exists && !create) throw databaseError(`no such SQLite file: ${file}`);
  if (exists && !statSync(file).isFile()) throw databaseError(`not a file: ${file}`);
  const [{ default: Database }, { createSqliteStore }, { sqliteHealthQueries }] = await Promise.all([
    loadDriver('better-sqlite3', () => import('better-sqlite3')),
    import('../sqlite/store.js'),
    import('../sqlite/health.js'),
  ]);
  let db = new Database(file, { readonly, fileMustExist: !create });
  let probe = sqliteHealthQueries(db);
  let snapshot: Snapshot | null = null;
  try {
    await probe.probeTables(); // a file that is not a database fails here, while connecting
  } catch (err) {
    db.close();
    if (!readonly || !needsSnapshot(err)) throw err;
    // A WAL store nobody has open, in a folder this user cannot write (./sqlite-snapshot.ts).
    snapshot = await snapshotOf(file);
    try {
      db = new Database(snapshot.file, { readonly: true, fileMustExist: true });
      probe = sqliteHealthQueries(db);
      await probe.probeTables();
    } catch (second) {
      if (db.open) db.close();
      await snapshot.remove();
      throw second;
    }
  }
  const opened = db;
  const held = snapshot;
  return {
    target: { dialect: 'sqlite', file },
    store: createSqliteStore(opened, options),
    probeTables: () => probe.probeTables(),
    close: async () => {
      opened.close();
      await held?.remove();
    },
  };
}

async function openPostgres(url: string, options: StoreOptions): Promise<OpenDatabase> {
  const [{ ownPool }, { createPostgresStore }, { postgresHealthQueries }] = await Promise.all([
    loadDriver('pg', () => import('../postgres/own-pool.js')),
    import('../postgres/store.js'),
    import('../postgres/health.js'),
  ]);
  const pool = ownPool(url, 'subagent-context-cli', 2);
  const probe = postgresHealthQueries(pool);
  try {
    await probe.probeTables();
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return {
    target: { dialect: 'postgres', url },
    store: createPostgresStore(pool, options),
    probeTables: () => probe.probeTables(),
    close: () => pool.end(),
  };
}

/** With create set, a missing SQLite file is created (only migrate --create-host-tables asks for it). */
export interface OpenOptions {
  readonly readonly: boolean;
  readonly store?: StoreOptions;
  readonly create?: boolean;
}

export async function openDatabase(target: DatabaseTarget, opts: OpenOptions): Promise<OpenDatabase> {
  try {
    return await matchDialect(target, {
      sqlite: ({ file }) => openSqlite(file, opts.readonly, opts.store ?? {}, opts.create === true && !opts.readonly),
      postgres: ({ url }) => openPostgres(url, opts.store ?? {}),
    });
  } catch (err) {
    throw toCliError(err, true);
  }
}

/** Runs fn on the opened database and always closes it. */
export async function withDatabase<T>(target: DatabaseTarget, opts: OpenOptions, fn: (db: OpenDatabase) => Promise<T>): Promise<T> {
  const db = await openDatabase(target, opts);
  try {
    return await fn(db);
  } finally {
    await db.close().catch(() => {});
  }
}
