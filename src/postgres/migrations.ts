// PLACEHOLDER (issue 4 replaces this): applies the fresh-database DDL only.
import type pg from 'pg';
import { packageSchema } from '../../generated/postgres/index.js';
import type { StoreContext } from '../dialect.js';
import type { MigrationReport } from '../types.js';

export async function runPostgresMigrations(pool: pg.Pool, _ctx: StoreContext): Promise<MigrationReport> {
  for (const script of packageSchema) await pool.query(script.sql);
  return { ok: true, steps: packageSchema.map((s) => ({ name: s.name, status: 'applied', ms: 0 })) };
}
