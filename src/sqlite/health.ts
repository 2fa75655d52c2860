// The health statements on SQLite (queries/sqlite/*_since_capture.sql, read_activation_keys,
// probe_store_tables), bound per docs/timestamps.md: the window start is the key in the
// fixed-width "utc9" form, and :sinceFloor (./text-floor.ts: the key minus 23:59, to the second)
// is the bare-column bound that lets idx_messages_created_at and idx_subagents_observed_at serve
// the window.
import type { Database } from 'better-sqlite3';
import {
  countCollisionsSinceCapture,
  countExcessSinceCapture,
  countShortfallSinceCapture,
  maxObservedAtSinceCapture,
  probeStoreTables,
  readActivationKeys,
} from '../../generated/sqlite/index.js';
import { ACTIVATION_KEY_PARAMS, toActivationKeys, type ActivationKeyValues } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { toCount } from '../count.js';
import { checkHealth } from '../health/check-health.js';
import { SQLITE_JSON_HELPER } from '../migrations/json-helper.js';
import { STORE_TABLES, type HealthQueries, type TablePresence } from '../health/queries.js';
import { formatUtc9 } from '../instant.js';
import { sqliteSinceFloor } from './text-floor.js';
import type { HealthReport } from '../types.js';

/** :since and :sinceFloor for a window starting at sinceNs. */
export function sqliteWindow(sinceNs: bigint): { since: string; sinceFloor: string } {
  return { since: formatUtc9(sinceNs), sinceFloor: sqliteSinceFloor(sinceNs) };
}

/** The three activation keys verbatim (synchronous, so the report can read them inside its snapshot). */
export const readSqliteKeys = (db: Database): ActivationKeyValues => toActivationKeys(readActivationKeys.one(ACTIVATION_KEY_PARAMS, db));

export function sqliteHealthQueries(db: Database): HealthQueries {
  return {
    async probeTables() {
      const row = probeStoreTables.one({}, db);
      return Object.fromEntries(STORE_TABLES.map((t) => [t, Number(row[t]) === 1])) as TablePresence;
    },
    // SQLite has no helper to plant or to lose (src/migrations/json-helper.ts).
    jsonHelper: async () => SQLITE_JSON_HELPER,
    async readKeys() {
      return readSqliteKeys(db);
    },
    async countShortfall(sinceNs) {
      return toCount(countShortfallSinceCapture.one(sqliteWindow(sinceNs), db).shortfall, 'shortfall');
    },
    async countExcess(sinceNs) {
      return toCount(countExcessSinceCapture.one(sqliteWindow(sinceNs), db).excess, 'excess');
    },
    async countCollisions(sinceNs) {
      return toCount(countCollisionsSinceCapture.one(sqliteWindow(sinceNs), db).collisions, 'collisions');
    },
    async maxObservedAt(sinceNs) {
      const value = maxObservedAtSinceCapture.one(sqliteWindow(sinceNs), db).last_observed_at;
      return value === null ? null : String(value);
    },
  };
}

export function checkSqliteHealth(db: Database, ctx: StoreContext): Promise<HealthReport> {
  return checkHealth(sqliteHealthQueries(db), ctx);
}
