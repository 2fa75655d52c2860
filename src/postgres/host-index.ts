// store.ensureHostIndex() on PostgreSQL: schema/host-index/postgres, built CONCURRENTLY so the
// host's writers go on. Each statement is sent alone on the pool (autocommit: CONCURRENTLY
// refuses a transaction). An unfinished build (INVALID, e.g. a cancelled earlier call) of the
// package's own definition is dropped and built again; a same-named index of another definition
// is reported, never replaced.
import type pg from 'pg';
import { dropUnfinishedHostIndex, hostIndexSchema, observeHostIndex, probeStoreTables } from '../../generated/postgres/index.js';
import type { HostIndexReport } from '../types.js';
import { foreignIndex, HOST_INDEX_NAME, HostIndexError, missingMessages, timedHostIndex } from '../host-index/host-index.js';

export function ensurePostgresHostIndex(pool: pg.Pool): Promise<HostIndexReport> {
  return timedHostIndex(async () => {
    const found = await observeHostIndex.maybeOne(undefined, pool);
    if (found && !found.ours) throw foreignIndex(found.definition);
    if (found?.valid) return 'present';
    if (found) await dropUnfinishedHostIndex.exec(undefined, pool);
    const tables = await probeStoreTables.one(undefined, pool);
    if (tables.task_session_messages !== true) throw missingMessages();
    for (const script of hostIndexSchema) await pool.query(script.sql);
    const built = await observeHostIndex.maybeOne(undefined, pool);
    if (!built?.valid)
      throw new HostIndexError(
        'database_error',
        `${HOST_INDEX_NAME} did not finish valid (another build of it may be running); run ensureHostIndex() again once it has ended`,
      );
    return found ? 'rebuilt' : 'created';
  });
}
