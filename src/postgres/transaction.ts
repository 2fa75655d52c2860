// PostgreSQL transactions: callback style, so COMMIT/ROLLBACK (or RELEASE/ROLLBACK TO) cannot
// be forgotten. withTransaction owns a dedicated pooled client, so nothing inside can run on
// another connection by accident; withSavepoint runs inside a transaction someone else owns
// (the store's own, or a host's: DESIGN §8 "Host transactions") and never ends it.
import type pg from 'pg';

type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * How the package's own write transactions begin. Its upserts rely on READ COMMITTED's ON
 * CONFLICT: a row another transaction committed while the statement waited for it is merged
 * by the conflict clause. Under a database's or role's default of REPEATABLE READ or
 * SERIALIZABLE the same wait ends in a serialization failure (40001), so the package asks for
 * READ COMMITTED rather than inherit the default (the BEGIN costs the same round trip).
 */
export const BEGIN_READ_COMMITTED = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/** `begin` opens the transaction: plain BEGIN, BEGIN_READ_COMMITTED, or e.g. the report's read-only snapshot. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // While a client is checked out, node-postgres takes the pool's 'error' listener off it, and
  // a backend that dies under us (pg_terminate_backend, a restart) is raised as an 'error' event
  // on the client as well as our query's rejection: with no listener that event would crash
  // the host's process. The rejection is what we act on; the event only marks the client dead.
  const onError = () => void (broken = true);
  client.on('error', onError);
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection is unusable: destroy it rather than return it to the pool
    }
    throw err;
  } finally {
    client.off('error', onError); // released, the pool's own listener takes over
    client.release(broken);
  }
}

/**
 * `fn` inside `SAVEPOINT name` on a client that is already in a transaction: on success the
 * savepoint is released, on failure everything since it is rolled back and it is released too,
 * so the enclosing transaction stays usable and no savepoint is left behind. `undo` (rolling
 * back to the savepoint, which stays established) lets `fn` retry after an error of its own.
 * Outside a transaction the SAVEPOINT itself fails (25P01) and `fn` never runs.
 */
export async function withSavepoint<T>(client: Queryable, name: string, fn: (undo: () => Promise<void>) => Promise<T>): Promise<T> {
  await client.query(`SAVEPOINT ${name}`);
  const undo = async () => void (await client.query(`ROLLBACK TO SAVEPOINT ${name}`));
  let result: T;
  try {
    result = await fn(undo);
  } catch (err) {
    try {
      await undo();
      await client.query(`RELEASE SAVEPOINT ${name}`);
    } catch {
      // the connection or the enclosing transaction is broken: its owner finds out at COMMIT
    }
    throw err;
  }
  await client.query(`RELEASE SAVEPOINT ${name}`);
  return result;
}

/** Serialization failure and deadlock: the statement wrote nothing, and PostgreSQL asks for a retry. */
const RETRY_CODES = new Set(['40001', '40P01']);
/** Attempts of one autocommitted statement before its error is the caller's. */
export const AUTOCOMMIT_ATTEMPTS = 3;

/**
 * `run` is ONE autocommitted statement (no transaction of the package's to set READ COMMITTED
 * on): under a database's or role's default of REPEATABLE READ or SERIALIZABLE, a statement that
 * waited for another transaction's write of its row fails 40001 once that transaction commits.
 * It wrote nothing, and the next attempt takes a new snapshot that sees the committed row, so
 * the conflict clause merges into it as READ COMMITTED would have. Never used inside a
 * transaction: a host's transaction keeps its snapshot to the end, so a retry there would fail
 * the same way (the write's savepoint is undone and the host decides); the package's own
 * transactions begin READ COMMITTED, where the wait merges instead of failing.
 */
export async function retryAutocommitted<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= AUTOCOMMIT_ATTEMPTS || !RETRY_CODES.has(String((err as { code?: unknown } | null)?.code))) throw err;
    }
  }
}
