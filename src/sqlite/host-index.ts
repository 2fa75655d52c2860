// store.ensureHostIndex() on SQLite: schema/host-index/sqlite applied when the index is absent.
// A same-named index is the package's only when SQLite stored exactly the package's statement
// (observe_host_index.sql): anything else is reported, not replaced, but for the package's own
// earlier statement, which is dropped and built again in one transaction ('rebuilt').
import type { Database } from 'better-sqlite3';
import { dropHostIndex, hostIndexSchema, observeHostIndex, probeStoreTables } from '../../generated/sqlite/index.js';
import type { HostIndexReport } from '../types.js';
import { foreignIndex, HostIndexError, missingMessages, timedHostIndex } from '../host-index/host-index.js';

export function ensureSqliteHostIndex(db: Database): Promise<HostIndexReport> {
  return timedHostIndex(() => {
    // Inside the host's transaction the build would commit (or roll back) with the host's work.
    if (db.inTransaction) throw new HostIndexError('in_transaction', 'ensureHostIndex() runs outside a transaction: the build is its own');
    const found = observeHostIndex.maybeOne({}, db);
    if (found) {
      if (Number(found.ours) === 1) return 'present';
      if (Number(found.previous) !== 1) throw foreignIndex(found.definition);
      db.transaction(() => {
        dropHostIndex.run({}, db);
        for (const script of hostIndexSchema) db.exec(script.sql);
      }).immediate();
      return 'rebuilt';
    }
    if (Number(probeStoreTables.one({}, db).task_session_messages) !== 1) throw missingMessages();
    for (const script of hostIndexSchema) db.exec(script.sql);
    return 'created';
  });
}
