// Creating and dropping whole PostgreSQL databases on a server: the one place the tests, the
// codegen, the benchmarks and the demo's tests do it. Each caller gets its own database, so
// nothing leaks between runs, and the drop is WITH (FORCE) so a connection someone forgot
// cannot block it. A database is copied from template1, or from a template the caller built
// (the test suite's starting states, test/helpers/template-databases.ts): a copy of a few
// tables costs what an empty database costs, so building the tables once and copying them per
// test saves applying their DDL per test.
//
// The CREATE and DROP statements of one process go over one maintenance connection per server,
// opened on first use and kept (a test suite creates and drops a database per test, and a
// connection costs about as much as the statement). Its socket is unref'd, so it never keeps
// a process alive; when the server ends it (a restart, a shutdown) the next statement opens a
// new one.
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

/**
 * How a database is copied. PostgreSQL 15 made WAL_LOG the default: it writes the template's
 * pages to the WAL and so avoids FILE_COPY's two checkpoints, which on a busy cluster with fsync
 * on cost more than the WAL for a small template. On a server with fsync off (the test suite's)
 * a checkpoint writes nothing to disk, and FILE_COPY is cheaper: a copy of the suite's schema
 * template takes 14 ms instead of 42, and the drop after it 7 instead of 19 (PostgreSQL 18),
 * for most tests one each. So FILE_COPY there, and the server's default everywhere else (the
 * benchmarks' cluster has fsync on). Before 15 FILE_COPY was the only way and the clause did
 * not exist.
 */
const FILE_COPY_SINCE = 150000;

/** A kept maintenance connection, what createDatabase needs to know of its server, and how many statements are running on it. */
interface Maintenance {
  readonly client: pg.Client;
  /** Read once when the connection opens: copy databases with STRATEGY FILE_COPY (above). */
  readonly fileCopy: boolean;
  running: number;
}

/** The open maintenance connection per server URL (see the top of this file). */
const maintenance = new Map<string, Promise<Maintenance>>();

/** pg keeps a client's socket as connection.stream: ref'd while a statement runs, unref'd while idle. */
function socketOf(client: pg.Client): { ref(): void; unref(): void } {
  return (client as unknown as { connection: { stream: { ref(): void; unref(): void } } }).connection.stream;
}

function maintenanceFor(serverUrl: string): Promise<Maintenance> {
  let opened = maintenance.get(serverUrl);
  if (opened === undefined) {
    const client = clientFor(serverUrl);
    const forget = () => {
      if (maintenance.get(serverUrl) === opened) maintenance.delete(serverUrl);
    };
    client.once('end', forget);
    opened = client
      .connect()
      .then(() =>
        client.query<{ file_copy: boolean }>(
          `SELECT current_setting('server_version_num')::int >= ${FILE_COPY_SINCE} AND current_setting('fsync') = 'off' AS file_copy`,
        ),
      )
      .then(
        (shown) => {
          socketOf(client).unref();
          return { client, fileCopy: shown.rows[0].file_copy, running: 0 };
        },
        (err: unknown) => {
          forget();
          void client.end().catch(() => {}); // a connection whose first query failed is not kept, nor left open
          throw err;
        },
      );
    maintenance.set(serverUrl, opened);
  }
  return opened;
}

/**
 * Runs one admin statement on the server's maintenance database. A connection the server
 * closed while it sat idle fails before the statement is sent (no SQLSTATE): the statement
 * is then sent once more, on a new connection.
 */
async function admin(serverUrl: string, sql: string | ((server: { fileCopy: boolean }) => string)): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const opened = maintenanceFor(serverUrl);
    const kept = await opened;
    if (kept.running++ === 0) socketOf(kept.client).ref();
    try {
      await kept.client.query(typeof sql === 'string' ? sql : sql(kept));
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const fromServer = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
      if (fromServer || attempt > 1) throw err;
      if (maintenance.get(serverUrl) === opened) maintenance.delete(serverUrl);
      await kept.client.end().catch(() => {});
    } finally {
      if (--kept.running === 0) socketOf(kept.client).unref();
    }
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
  const template = options.template === undefined ? '' : ` TEMPLATE ${checkedName(options.template)}`;
  await admin(serverUrl, (server) => `CREATE DATABASE ${name}${template}${server.fileCopy ? ' STRATEGY FILE_COPY' : ''}`);
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
