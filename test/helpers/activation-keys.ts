// Activation keys written straight into kandev_meta, so a test builds an exact key state
// rather than reaching it through runMigrations.
import { ACTIVATION_KEYS } from '../../src/index.js';
import type { TestDb } from './test-db.js';

export const KEY = ACTIVATION_KEYS;

/** Inserts each key with its value as stored text, in the order given. */
export async function setKeys(db: TestDb, keys: Readonly<Record<string, string>>): Promise<void> {
  for (const [key, value] of Object.entries(keys)) await db.query('INSERT INTO kandev_meta (key, value) VALUES ($1, $2)', [key, value]);
}
