// store.createHostTables() on PostgreSQL: the host tables the package reads (schema/host/postgres,
// CREATE … IF NOT EXISTS, in the schema search_path creates in), for a database that has none —
// the standalone path (docs/host-tables.md). Where both exist (as search_path resolves them) it
// does nothing at all; otherwise one transaction: all of them or none. The proxy and the demo
// create their stores' host tables through it.
import type pg from 'pg';
import { hostSchema, probeStoreTables } from '../../generated/postgres/index.js';
import { withTransaction } from './transaction.js';

export async function createPostgresHostTables(pool: pg.Pool): Promise<void> {
  const present = await probeStoreTables.one(undefined, pool);
  if (present.task_sessions === true && present.task_session_messages === true) return;
  await withTransaction(pool, async (client) => {
    for (const script of hostSchema) await client.query(script.sql);
  });
}
