// Creating and dropping whole PostgreSQL databases on a server: the one place the tests, the
// codegen, the benchmarks and the demo's tests do it. Each caller gets its own database, so
// nothing leaks between runs, and the drop is WITH (FORCE) so a connection someone forgot
// cannot block it.
//
// Every connection made here (and every pool handed out) has an 'error' listener: DROP
// DATABASE … WITH (FORCE) terminates the backends of idle clients, and pg raises that on the
// idle client as an 'error' event, which without a listener crashes the whole process. A
// client that is in use still sees the failure as its query's rejection. poolFor and
// clientFor are the only places in test/ and scripts/ that construct a pg.Pool or pg.Client
// (test/layout-postgres-connections.test.ts holds every file to that); poolFor through the
// package's own pool set-up (src/postgres/own-pool.ts), so there is one.
import pg from 'pg';
import { listenedPool } from '../../src/postgres/own-pool.js';

/** Database names are interpolated into DDL (identifiers cannot be bound): only plain ones. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function checkedName(name: string): string {
  if (!PLAIN_NAME.test(name)) throw new Error(`not a plain database name: ${JSON.stringify(name)}`);
  return name;
}

/** The URL of database `name` on the server `serverUrl` points at (same credentials). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${checkedName(name)}`;
  return url.toString();
}

/** The database a URL names. */
export function databaseName(url: string): string {
  return checkedName(decodeURIComponent(new URL(url).pathname.slice(1)));
}

const ignoreIdleError = () => {};

/** A pool whose idle clients may be killed (a forced drop, a restart) without crashing the process. */
export function poolFor(config: pg.PoolConfig): pg.Pool {
  return listenedPool(config);
}

/** A client (not yet connected) whose connection may be killed without crashing the process. */
export function clientFor(config: string | pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  client.on('error', ignoreIdleError);
  return client;
}

/** Runs one admin statement on the server's maintenance database, on a connection of its own. */
async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = clientFor(serverUrl);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops database `name` if it exists, terminating any session still connected to it. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await admin(serverUrl, `DROP DATABASE IF EXISTS ${checkedName(name)} WITH (FORCE)`);
}

export interface CreateDatabaseOptions {
  /** Copy this database instead of template1 (it must have no other connections). */
  template?: string;
  /** Drop a database of the same name first (a leftover of an interrupted run). */
  replaceExisting?: boolean;
}

/** A database created by createDatabase. */
export interface CreatedDatabase {
  readonly name: string;
  readonly url: string;
  /** A pool on this database (idle errors ignored, see above); drop() ends it. */
  pool(config?: Omit<pg.PoolConfig, 'connectionString'>): pg.Pool;
  /** Ends every pool from pool(), then drops the database. */
  drop(): Promise<void>;
}

export async function createDatabase(serverUrl: string, name: string, options: CreateDatabaseOptions = {}): Promise<CreatedDatabase> {
  checkedName(name);
  if (options.replaceExisting) await dropDatabase(serverUrl, name);
  await admin(serverUrl, `CREATE DATABASE ${name}${options.template === undefined ? '' : ` TEMPLATE ${checkedName(options.template)}`}`);
  const url = databaseUrl(serverUrl, name);
  const pools: pg.Pool[] = [];
  return {
    name,
    url,
    pool(config = {}) {
      const pool = poolFor({ ...config, connectionString: url });
      pools.push(pool);
      return pool;
    },
    async drop() {
      for (const pool of pools.splice(0)) if (!pool.ending) await pool.end();
      await dropDatabase(serverUrl, name);
    },
  };
}
