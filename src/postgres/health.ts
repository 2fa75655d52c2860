// The health statements on PostgreSQL (queries/postgres/*_since_capture.sql,
// read_activation_keys, probe_store_tables), bound per docs/timestamps.md: the window start
// is the key rounded UP to the next whole microsecond and sent as TIMESTAMP text with no
// offset, so `col >= :since` is exact for microsecond columns and no result depends on the
// session TimeZone. (SQLite's statements also take :sinceFloor, their index bound; these need
// none: a dialect may take a superset of the other's parameters, never a fake one.)
import type pg from 'pg';
import {
  countCollisionsSinceCapture,
  countExcessSinceCapture,
  countShortfallSinceCapture,
  maxObservedAtSinceCapture,
  probeStoreTables,
  readActivationKeys,
} from '../../generated/postgres/index.js';
import { ACTIVATION_KEY_PARAMS, toActivationKeys, type ActivationKeyValues } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { toCount } from '../count.js';
import { checkHealth } from '../health/check-health.js';
import { STORE_TABLES, type HealthQueries, type TablePresence } from '../health/queries.js';
import { ceilToMicros, formatMicros } from '../instant.js';
import type { HealthReport } from '../types.js';
import { observePostgresJsonHelper } from './json-helper.js';

/** :since for a window starting at sinceNs. */
export function postgresWindow(sinceNs: bigint): { since: string } {
  return { since: formatMicros(ceilToMicros(sinceNs)) };
}

/** The three activation keys verbatim, on `client` (the report's snapshot) or the pool. */
export const readPostgresKeys = async (client: pg.Pool | pg.PoolClient): Promise<ActivationKeyValues> =>
  toActivationKeys((await readActivationKeys.run(ACTIVATION_KEY_PARAMS, client))[0]);

export function postgresHealthQueries(pool: pg.Pool | pg.PoolClient): HealthQueries {
  return {
    async probeTables() {
      const [row] = await probeStoreTables.run(undefined, pool);
      return Object.fromEntries(STORE_TABLES.map((t) => [t, row?.[t] === true])) as TablePresence;
    },
    jsonHelper: () => observePostgresJsonHelper(pool),
    readKeys: () => readPostgresKeys(pool),
    async countShortfall(sinceNs) {
      return toCount((await countShortfallSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.shortfall, 'shortfall');
    },
    async countExcess(sinceNs) {
      return toCount((await countExcessSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.excess, 'excess');
    },
    async countCollisions(sinceNs) {
      return toCount((await countCollisionsSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.collisions, 'collisions');
    },
    async maxObservedAt(sinceNs) {
      return (await maxObservedAtSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.last_observed_at ?? null;
    },
  };
}

export function checkPostgresHealth(pool: pg.Pool, ctx: StoreContext): Promise<HealthReport> {
  return checkHealth(postgresHealthQueries(pool), ctx);
}
