// PLACEHOLDER (issue 5 replaces this).
import type { Database } from 'better-sqlite3';
import type { StoreContext } from '../dialect.js';
import type { HealthReport } from '../types.js';

export async function checkSqliteHealth(_db: Database, _ctx: StoreContext): Promise<HealthReport> {
  throw new Error('checkHealth is not implemented yet');
}
