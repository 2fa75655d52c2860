// The check before anything is written (issue 30 item 3): the package reads the host's
// task_sessions and task_session_messages and, unless asked (store.createHostTables()), never
// creates them. On a database without them a pass would create kandev_meta and the package's
// table, write a key and then fail the backfill on every boot; instead it reports this one
// failed check, code `missing_host_tables`, and creates nothing. As with the version check, a
// probe that fails (an unusable connection) lets the pass run, and its steps report why.
import { SubagentContextError } from '../errors.js';
import { awaited } from './flow.js';
import { HOST_TABLES, type MigrationDatabase } from './migration-database.js';

export const MISSING_HOST_TABLES = 'missing_host_tables';

export function missingHostTablesError(missing: readonly string[]): SubagentContextError {
  const plural = missing.length > 1 ? 's' : '';
  return new SubagentContextError(
    MISSING_HOST_TABLES,
    `missing host table${plural} ${missing.join(', ')}: this is not the host's database, and nothing was created. ` +
      'If this database is meant to hold them, create them with store.createHostTables() (CLI: migrate --create-host-tables)',
  );
}

export async function hostTablesMissing(db: MigrationDatabase): Promise<SubagentContextError | null> {
  let present;
  try {
    present = await db.unlocked((primitives) => awaited(primitives.probeHostTables()));
  } catch {
    return null;
  }
  const missing = HOST_TABLES.filter((t) => !present[t]);
  return missing.length ? missingHostTablesError(missing) : null;
}
