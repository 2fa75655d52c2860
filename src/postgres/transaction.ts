// PostgreSQL transactions: callback style on a dedicated pooled client, so nothing inside
// can run on another connection by accident, and COMMIT/ROLLBACK cannot be forgotten.
import type pg from 'pg';

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // While a client is checked out, node-postgres takes the pool's 'error' listener off it, and
  // a backend that dies under us (pg_terminate_backend, a restart) is raised as an 'error' event
  // on the client as well as our query's rejection: with no listener that event would crash
  // the host's process. The rejection is what we act on; the event only marks the client dead.
  const onError = () => void (broken = true);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
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
