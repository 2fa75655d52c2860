// PostgreSQL transactions: callback style on a dedicated pooled client, so nothing inside
// can run on another connection by accident, and COMMIT/ROLLBACK cannot be forgotten.
import type pg from 'pg';

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
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
    client.release(broken);
  }
}
