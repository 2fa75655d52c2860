// The import store for a database target, its driver loaded only when that dialect is asked
// for (as the CLI's other commands do).
import type { DatabaseTarget } from '../cli/database.js';
import type { ImportStore, ImportStoreOptions } from './import-store.js';

export async function openImportStore(target: DatabaseTarget, options: ImportStoreOptions): Promise<ImportStore> {
  if (target.dialect === 'sqlite') return (await import('./sqlite-import-store.js')).openSqliteImportStore(target.file, options);
  return (await import('./postgres-import-store.js')).openPostgresImportStore(target.url, options);
}
