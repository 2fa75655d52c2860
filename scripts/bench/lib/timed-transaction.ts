// One transaction of a walk prototype (./window-walk.ts, ./session-order-walk.ts), timed as the
// package's chunks are: BEGIN, the chunk's work, COMMIT, or ROLLBACK and the error.
import type { Client, PoolClient } from 'pg';

/** Runs `work` in one transaction; the milliseconds from BEGIN to COMMIT. */
export async function timedTransaction(client: Client | PoolClient, work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
  return performance.now() - started;
}
