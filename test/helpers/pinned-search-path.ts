// A statement that tests JSON validity (queries/postgres/fragments/valid_jsonb.sql) run by a test
// directly, as the package runs it: on one pooled client, in a transaction whose search_path is
// pinned first (queries/postgres/set_local_search_path.sql). Without the pin, PostgreSQL 15 finds
// no pg_input_is_valid (the package's lives in subagent_context, which the session's search_path
// does not name) and 16+ could find one another role put ahead of pg_catalog.
import type pg from 'pg';
import { setLocalSearchPath } from '../../generated/postgres/index.js';
import { withTransaction } from '../../src/postgres/transaction.js';

/** `fn` on one client, in a transaction with the package's pinned search_path; committed when it returns. */
export function withPinnedSearchPath<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    await setLocalSearchPath.run(undefined, client);
    return fn(client);
  });
}

/** The pin on a client the caller already holds in a transaction (EXPLAIN of such a statement). */
export async function pinSearchPath(client: pg.PoolClient): Promise<void> {
  await setLocalSearchPath.run(undefined, client);
}
