// The one check before any step: an engine older than the package's statements need would
// fail a step on every boot (SQLite before 3.38 cannot even parse the `->` operator), so the
// pass reports this single failed check instead and runs nothing. Any doubt — the version
// cannot be read — lets the pass run, and its steps report whatever fails.
import { SubagentContextError } from '../errors.js';
import { awaited } from './flow.js';
import type { DatabaseVersion, MigrationDatabase } from './migration-database.js';

export async function databaseTooOld(db: MigrationDatabase): Promise<SubagentContextError | null> {
  let actual: DatabaseVersion;
  try {
    actual = await db.unlocked((primitives) => awaited(primitives.readVersion()));
  } catch {
    return null;
  }
  const minimum = db.minimumVersion;
  if (actual.number >= minimum.number) return null;
  return new SubagentContextError(
    'database_too_old',
    `${db.engine} ${actual.text} is older than ${minimum.text}, the minimum this package needs (${minimum.reason}); no migration step ran`,
  );
}
