// store.ensureHostIndex() on SQLite: schema/host-index/sqlite applied when the index is absent.
// A same-named index is the package's only when SQLite stored exactly the package's statement
// (observe_host_index.sql): anything else is reported, not replaced.
import type { Database } from 'better-sqlite3';
import { hostIndexSchema, observeHostIndex, probeStoreTables } from '../../generated/sqlite/index.js';
import type { HostIndexReport } from '../types.js';
import { foreignIndex, HostIndexError, missingMessages, timedHostIndex } from '../host-index/host-index.js';

export function ensureSqliteHostIndex(db: Database): Promise<HostIndexReport> {
  return timedHostIndex(() => {
    // Inside the host's transaction the build would commit (or roll back) with the host's work.
    if (db.inTransaction) throw new HostIndexError('in_transaction', 'ensureHostIndex() runs outside a transaction: the build is its own');
    const found = observeHostIndex.maybeOne({}, db);
    if (found) {
      if (Number(found.ours) === 1) return 'present';
      throw foreignIndex(found.definition);
    }
    if (Number(probeStoreTables.one({}, db).task_session_messages) !== 1) throw missingMessages();
    for (const script of hostIndexSchema) db.exec(script.sql);
    return 'created';
  });
}
