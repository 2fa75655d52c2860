// The import store for a database target, its driver loaded only when that dialect is asked
// for (as the CLI's other commands do).
import type { DatabaseTarget } from '../database-target.js';
import { matchDialect } from '../dialect.js';
import type { ImportStore, ImportStoreOptions } from './import-store.js';

export async function openImportStore(target: DatabaseTarget, options: ImportStoreOptions): Promise<ImportStore> {
  return matchDialect(target, {
    sqlite: async (t) => (await import('./sqlite-import-store.js')).openSqliteImportStore(t.file, options),
    postgres: async (t) => (await import('./postgres-import-store.js')).openPostgresImportStore(t.url, options),
  });
}
