// PostgreSQL's pg_input_is_valid(text, text) as queries/postgres/observe_json_helper.sql
// judges it, as the migration runner reads it with the table's shape (issue #16 item 3).
// checkHealth() runs the same generated statement alone, named (./health.ts).
import type pg from 'pg';
import { observeJsonHelper } from '../../generated/postgres/index.js';
import { toJsonHelper, type JsonHelper } from '../migrations/json-helper.js';

export async function observePostgresJsonHelper(db: pg.Pool | pg.PoolClient): Promise<JsonHelper> {
  const row = await observeJsonHelper.one(undefined, db);
  return toJsonHelper(row.json_helper_state, row.json_helper_found);
}
