// The one place a node-postgres pool is set up: the package's own (the CLI's, the proxy's
// writer's, the demo's) and, through scripts/lib/postgres-database.ts poolFor, every pool the
// tests and benchmarks make. A host's pool is the host's and never passes through here.
//
// Every pool gets an 'error' listener: node-postgres reports an idle client whose backend died
// (a restart, pg_terminate_backend, DROP DATABASE … WITH (FORCE)) as an 'error' event on the
// pool, and an 'error' event nobody listens for crashes the process. The failure surfaces on
// the next query instead, as that query's rejection.
import pg from 'pg';

const ignoreIdleError = () => {};

/** A pool on `config` whose idle clients may die without crashing the process. */
export function listenedPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', ignoreIdleError);
  return pool;
}

/**
 * A pool of the package's own on `url`: `max` connections, a connection attempt that gives up
 * after 10 s (not the driver's default of never), and `application_name` set so that a DBA
 * sees in pg_stat_activity which part of the package is connected.
 */
export function ownPool(url: string, applicationName: string, max: number): pg.Pool {
  return listenedPool({ connectionString: url, max, connectionTimeoutMillis: 10_000, application_name: applicationName });
}
