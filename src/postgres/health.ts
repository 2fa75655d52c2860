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
  observeSubagentTableShape,
  probeStoreTables,
  readActivationKeys,
} from '../../generated/postgres/index.js';
import { ACTIVATION_KEYS } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { checkHealth } from '../health/check-health.js';
import { toTableShape } from '../migrations/table-shape.js';
import { STORE_TABLES, toCount, type HealthQueries, type TablePresence } from '../health/queries.js';
import { ceilToMicros, formatMicros } from '../instant.js';
import type { HealthReport } from '../types.js';

/** :since for a window starting at sinceNs. */
export function postgresWindow(sinceNs: bigint): { since: string } {
  return { since: formatMicros(ceilToMicros(sinceNs)) };
}

export function postgresHealthQueries(pool: pg.Pool | pg.PoolClient): HealthQueries {
  return {
    async probeTables() {
      const [row] = await probeStoreTables.run(undefined, pool);
      return Object.fromEntries(STORE_TABLES.map((t) => [t, row?.[t] === true])) as TablePresence;
    },
    async jsonHelper() {
      return toTableShape((await observeSubagentTableShape.run(undefined, pool))[0]).jsonHelper;
    },
    async readKeys() {
      const [row] = await readActivationKeys.run(
        {
          captureSinceKey: ACTIVATION_KEYS.captureSince,
          backfillThroughKey: ACTIVATION_KEYS.backfillThrough,
          executionSinceKey: ACTIVATION_KEYS.executionSince,
        },
        pool,
      );
      return { capture_since: row?.capture_since ?? null, backfill_through: row?.backfill_through ?? null, execution_since: row?.execution_since ?? null };
    },
    async countShortfall(sinceNs) {
      return toCount((await countShortfallSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.shortfall);
    },
    async countExcess(sinceNs) {
      return toCount((await countExcessSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.excess);
    },
    async countCollisions(sinceNs) {
      return toCount((await countCollisionsSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.collisions);
    },
    async maxObservedAt(sinceNs) {
      return (await maxObservedAtSinceCapture.run(postgresWindow(sinceNs), pool))[0]?.last_observed_at ?? null;
    },
  };
}

export function checkPostgresHealth(pool: pg.Pool, ctx: StoreContext): Promise<HealthReport> {
  return checkHealth(postgresHealthQueries(pool), ctx);
}
