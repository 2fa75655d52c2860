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
  observeJsonHelper,
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
import { toJsonHelper } from '../migrations/json-helper.js';
import { createStatementRunner, packageStatement, type Queryable, type StatementRunner } from './named-statement.js';

/** :since for a window starting at sinceNs. */
export function postgresWindow(sinceNs: bigint): { since: string } {
  return { since: formatMicros(ceilToMicros(sinceNs)) };
}

/** The three activation keys verbatim, on `client` (the report's snapshot) or the pool. */
export const readPostgresKeys = async (client: pg.Pool | pg.PoolClient): Promise<ActivationKeyValues> =>
  toActivationKeys(await readActivationKeys.one(ACTIVATION_KEY_PARAMS, client));

// The health check's statements as the store's runner sends them (./named-statement.ts): named,
// parsed once per pooled connection, so a host checking health every few seconds does not pay
// PostgreSQL's parse and plan of each statement each time (issue 20: on a 250k-message store
// the parse and plan were more than half of a last-1% check). Their plans are proven
// index-driven under generic plans too (test/health-plans.test.ts).
const HEALTH = {
  probe: packageStatement('probe_store_tables', probeStoreTables),
  keys: packageStatement('read_activation_keys', readActivationKeys),
  helper: packageStatement('observe_json_helper', observeJsonHelper),
  shortfall: packageStatement('count_shortfall_since_capture', countShortfallSinceCapture),
  excess: packageStatement('count_excess_since_capture', countExcessSinceCapture),
  collisions: packageStatement('count_collisions_since_capture', countCollisionsSinceCapture),
  max: packageStatement('max_observed_at_since_capture', maxObservedAtSinceCapture),
};

/** Unnamed: for the callers without a store (the CLI's first probe) or with their own client. */
const UNNAMED = createStatementRunner({ named: false });

/** The health statements on `pool`, through `statements` (the store's runner; unnamed without one). */
export function postgresHealthQueries(pool: Queryable, statements: StatementRunner = UNNAMED): HealthQueries {
  return {
    async probeTables() {
      const row = await statements.one(HEALTH.probe, undefined, pool);
      return Object.fromEntries(STORE_TABLES.map((t) => [t, row[t] === true])) as TablePresence;
    },
    async jsonHelper() {
      const row = await statements.one(HEALTH.helper, undefined, pool);
      return toJsonHelper(row.json_helper_state, row.json_helper_found);
    },
    async readKeys() {
      return toActivationKeys(await statements.one(HEALTH.keys, ACTIVATION_KEY_PARAMS, pool));
    },
    async countShortfall(sinceNs) {
      return toCount((await statements.one(HEALTH.shortfall, postgresWindow(sinceNs), pool)).shortfall, 'shortfall');
    },
    async countExcess(sinceNs) {
      return toCount((await statements.one(HEALTH.excess, postgresWindow(sinceNs), pool)).excess, 'excess');
    },
    async countCollisions(sinceNs) {
      return toCount((await statements.one(HEALTH.collisions, postgresWindow(sinceNs), pool)).collisions, 'collisions');
    },
    async maxObservedAt(sinceNs) {
      return (await statements.one(HEALTH.max, postgresWindow(sinceNs), pool)).last_observed_at ?? null;
    },
  };
}

export function checkPostgresHealth(pool: Queryable, statements: StatementRunner, ctx: StoreContext): Promise<HealthReport> {
  return checkHealth(postgresHealthQueries(pool, statements), ctx);
}
