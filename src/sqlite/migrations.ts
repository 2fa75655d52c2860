// PLACEHOLDER (issue 4 replaces this): applies the fresh-database DDL only.
import type { Database } from 'better-sqlite3';
import { packageSchema } from '../../generated/sqlite/index.js';
import type { StoreContext } from '../dialect.js';
import type { MigrationReport } from '../types.js';

export async function runSqliteMigrations(db: Database, _ctx: StoreContext): Promise<MigrationReport> {
  for (const script of packageSchema) db.exec(script.sql);
  return { ok: true, steps: packageSchema.map((s) => ({ name: s.name, status: 'applied', ms: 0 })) };
}
