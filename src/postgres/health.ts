// PLACEHOLDER (issue 5 replaces this).
import type pg from 'pg';
import type { StoreContext } from '../dialect.js';
import type { HealthReport } from '../types.js';

export async function checkPostgresHealth(_pool: pg.Pool, _ctx: StoreContext): Promise<HealthReport> {
  throw new Error('checkHealth is not implemented yet');
}
