// store.createHostTables() on SQLite: the host tables the package reads (schema/host/sqlite,
// CREATE … IF NOT EXISTS), for a database that has none — the standalone path
// (docs/host-tables.md). Where both exist it does nothing at all: no write, so no wait for the
// write lock a busy host may hold (the proxy calls it on every start). Otherwise one
// transaction of its own (or a savepoint in the host's): all of them or none. The proxy and the
// demo create their stores' host tables through it.
import type { Database } from 'better-sqlite3';
import { hostSchema, probeStoreTables } from '../../generated/sqlite/index.js';
import { inWriteScope } from './transaction.js';

export async function createSqliteHostTables(db: Database): Promise<void> {
  const present = probeStoreTables.one({}, db);
  if (Number(present.task_sessions) === 1 && Number(present.task_session_messages) === 1) return;
  inWriteScope(db, () => {
    for (const script of hostSchema) db.exec(script.sql);
  });
}
