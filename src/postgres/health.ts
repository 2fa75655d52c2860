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
  setLocalSearchPath,
  setLocalTimeSettings,
} from '../../generated/postgres/index.js';
import { ACTIVATION_KEY_PARAMS, toActivationKeys, type ActivationKeyValues } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { toCount } from '../count.js';
import { checkHealth } from '../health/check-health.js';
import { STORE_TABLES, type HealthQueries, type TablePresence, type WindowCounts } from '../health/queries.js';
import { ceilToMicros, formatMicros } from '../instant.js';
import type { HealthReport } from '../types.js';
import { toJsonHelper } from '../migrations/json-helper.js';
import {
  createStatementRunner,
  isNamedStatementConflict,
  packageStatement,
  type ConflictRecovery,
  type Queryable,
  type StatementRunner,
} from './named-statement.js';
import { withTransaction } from './transaction.js';

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
  pin: packageStatement('set_local_search_path', setLocalSearchPath),
  times: packageStatement('set_local_time_settings', setLocalTimeSettings),
  shortfall: packageStatement('count_shortfall_since_capture', countShortfallSinceCapture),
  excess: packageStatement('count_excess_since_capture', countExcessSinceCapture),
  collisions: packageStatement('count_collisions_since_capture', countCollisionsSinceCapture),
  max: packageStatement('max_observed_at_since_capture', maxObservedAtSinceCapture),
};

/** Unnamed: for the callers without a store (the CLI's first probe) or with their own client. */
const UNNAMED = createStatementRunner({ named: false });

/**
 * The statements that test JSON (the two anti-joins: queries/postgres/fragments/valid_jsonb.sql)
 * run in a transaction whose search_path is pinned first (queries/postgres/set_local_search_path.sql),
 * so pg_catalog's built-in, or on PostgreSQL 15 the package's own helper, answers before
 * anything on the session's search_path: checkHealth() runs each of its two chains so (one
 * transaction each, the counts that need no pin inside it too), a lone anti-join gets one of
 * its own. A named-statement conflict aborts the transaction: it is redone once, unnamed by then.
 */
async function pinnedRead<T>(pool: pg.Pool, statements: StatementRunner, read: (counts: WindowCounts) => Promise<T>): Promise<T> {
  const attempt = () =>
    withTransaction(pool, async (client) => {
      await statements.rows(HEALTH.pin, undefined, client, 'rethrow');
      // A timestamptz created_at compared with the window's UTC bound in UTC (the query file says why).
      await statements.rows(HEALTH.times, undefined, client, 'rethrow');
      return read(windowCounts(client, statements, 'rethrow'));
    });
  try {
    return await attempt();
  } catch (err) {
    if (!isNamedStatementConflict(err)) throw err;
    return attempt();
  }
}

/** The four counts on `target`: the pool in autocommit ('retry'), or a pinned transaction's client ('rethrow'). */
function windowCounts(target: Queryable, statements: StatementRunner, recovery: ConflictRecovery): WindowCounts {
  return {
    countShortfall: async (since) => toCount((await statements.one(HEALTH.shortfall, postgresWindow(since), target, recovery)).shortfall, 'shortfall'),
    countExcess: async (since) => toCount((await statements.one(HEALTH.excess, postgresWindow(since), target, recovery)).excess, 'excess'),
    countCollisions: async (since) => toCount((await statements.one(HEALTH.collisions, postgresWindow(since), target, recovery)).collisions, 'collisions'),
    maxObservedAt: async (since) => (await statements.one(HEALTH.max, postgresWindow(since), target, recovery)).last_observed_at ?? null,
  };
}

/** The health statements on `pool`, through `statements` (the store's runner; unnamed without one). */
export function postgresHealthQueries(pool: pg.Pool, statements: StatementRunner = UNNAMED): HealthQueries {
  const onPool = windowCounts(pool, statements, 'retry');
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
    countShortfall: (sinceNs) => pinnedRead(pool, statements, (counts) => counts.countShortfall(sinceNs)),
    countExcess: (sinceNs) => pinnedRead(pool, statements, (counts) => counts.countExcess(sinceNs)),
    countCollisions: onPool.countCollisions,
    maxObservedAt: onPool.maxObservedAt,
    pinnedChain: (chain) => pinnedRead(pool, statements, chain),
  };
}

export function checkPostgresHealth(pool: pg.Pool, statements: StatementRunner, ctx: StoreContext): Promise<HealthReport> {
  return checkHealth(postgresHealthQueries(pool, statements), ctx);
}
