// The database a command works on: exactly one of --sqlite FILE or --postgres URL, opened
// the way the command needs it. A SQLite file is never created (a health check or a
// migration pointed at a mistyped path must fail, not leave an empty database behind), and
// `health` opens it read-only. Exported for every command that needs a database (demo too).
// Each dialect's driver is imported only when that dialect is asked for, so a usage error or
// --help answers without loading either driver.
import { existsSync, statSync } from 'node:fs';
import type { TablePresence } from '../health/queries.js';
import type { StoreOptions, SubagentContextStore } from '../types.js';
import { databaseError, toCliError, usageError } from './cli-error.js';
import { maskConnectionString } from './connection-secrets.js';
import { loadDriver } from './driver.js';

/** parseArgs options every database command accepts. */
export const DATABASE_OPTIONS = {
  sqlite: { type: 'string' },
  postgres: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

export const DATABASE_SYNOPSIS = '(--sqlite FILE | --postgres URL) [--json]';

export type DatabaseTarget = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export function databaseTarget(values: { sqlite?: string; postgres?: string }): DatabaseTarget {
  if (values.sqlite !== undefined && values.postgres !== undefined) throw usageError('give either --sqlite or --postgres, not both');
  if (values.sqlite !== undefined) {
    if (values.sqlite === '') throw usageError('--sqlite needs a file path');
    return { dialect: 'sqlite', file: values.sqlite };
  }
  if (values.postgres !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(values.postgres)) throw usageError('--postgres needs a postgres:// or postgresql:// URL');
    return { dialect: 'postgres', url: values.postgres };
  }
  throw usageError('a database is required: --sqlite FILE or --postgres URL');
}

/** Where the database is, for output: the file, or the URL with every secret masked (connection-secrets.ts). */
export function describeTarget(target: DatabaseTarget): string {
  return target.dialect === 'sqlite' ? `sqlite ${target.file}` : `postgres ${maskConnectionString(target.url)}`;
}

export interface OpenDatabase {
  readonly target: DatabaseTarget;
  readonly store: SubagentContextStore;
  /** Which of the tables the package reads exist. */
  probeTables(): Promise<TablePresence>;
  close(): Promise<void>;
}

async function openSqlite(file: string, readonly: boolean, options: StoreOptions): Promise<OpenDatabase> {
  if (!existsSync(file)) throw databaseError(`no such SQLite file: ${file}`);
  if (!statSync(file).isFile()) throw databaseError(`not a file: ${file}`);
  const [{ default: Database }, { createSqliteStore }, { sqliteHealthQueries }] = await Promise.all([
    loadDriver('better-sqlite3', () => import('better-sqlite3')),
    import('../sqlite/store.js'),
    import('../sqlite/health.js'),
  ]);
  const db = new Database(file, { readonly, fileMustExist: true });
  const probe = sqliteHealthQueries(db);
  try {
    await probe.probeTables(); // a file that is not a database fails here, while connecting
  } catch (err) {
    db.close();
    throw err;
  }
  return {
    target: { dialect: 'sqlite', file },
    store: createSqliteStore(db, options),
    probeTables: () => probe.probeTables(),
    close: async () => void db.close(),
  };
}

async function openPostgres(url: string, options: StoreOptions): Promise<OpenDatabase> {
  const [{ default: pg }, { createPostgresStore }, { postgresHealthQueries }] = await Promise.all([
    loadDriver('pg', () => import('pg')),
    import('../postgres/store.js'),
    import('../postgres/health.js'),
  ]);
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000, application_name: 'subagent-context-cli' });
  pool.on('error', () => {}); // an idle client's socket error surfaces on the next query instead
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

export async function openDatabase(target: DatabaseTarget, opts: { readonly: boolean; store?: StoreOptions }): Promise<OpenDatabase> {
  try {
    return target.dialect === 'sqlite' ? await openSqlite(target.file, opts.readonly, opts.store ?? {}) : await openPostgres(target.url, opts.store ?? {});
  } catch (err) {
    throw toCliError(err, true);
  }
}

/** Runs fn on the opened database and always closes it. */
export async function withDatabase<T>(
  target: DatabaseTarget,
  opts: { readonly: boolean; store?: StoreOptions },
  fn: (db: OpenDatabase) => Promise<T>,
): Promise<T> {
  const db = await openDatabase(target, opts);
  try {
    return await fn(db);
  } finally {
    await db.close().catch(() => {});
  }
}
