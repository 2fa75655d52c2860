// runMigrations() on PostgreSQL: the dialect steps the neutral pass (src/migrations/)
// sequences. Every step is one transaction on a dedicated pooled client that first takes
// the migration's advisory transaction lock (queries/postgres/acquire_migration_lock.sql)
// with a bounded wait, so two processes or pools migrating at once take turns and each
// re-reads the shape and the keys under the lock; COMMIT or ROLLBACK releases it.
import type pg from 'pg';
import {
  acquireMigrationLock,
  backfillSubagentContexts,
  observeSubagentTableShape,
  packageSchema,
  readBackfillThrough,
  readMetaKey,
  upgradeSchema,
  writeMetaKeyOnce,
  type SchemaScript,
} from '../../generated/postgres/index.js';
import { ACTIVATION_KEYS } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { runMigrationPass } from '../migrations/migration-pass.js';
import type { AppliedOrSkipped, MigrationDialect } from '../migrations/migration-dialect.js';
import { MIGRATION_STEP } from '../migrations/step-names.js';
import { executionIdentityShapeHolds, toTableShape, type TableShape } from '../migrations/table-shape.js';
import type { MigrationReport } from '../types.js';
import { withTransaction } from './transaction.js';

type Queryable = pg.Pool | pg.PoolClient;

function script(list: readonly SchemaScript[], name: string): SchemaScript {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`schema script ${name} is missing from generated/postgres/schema.ts`);
  return found;
}

/**
 * One step's transaction under the migration lock. The lock wait is bounded by a generous
 * lock_timeout (a concurrent migrator may be running the whole backfill); once held, waits
 * for table locks the host holds are bounded more tightly, so a busy host table delays boot
 * by seconds at most and the step is retried on the next run.
 */
function locked(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<AppliedOrSkipped>): Promise<AppliedOrSkipped> {
  return withTransaction(pool, async (client) => {
    await client.query(`SET LOCAL lock_timeout = '60s'`);
    await acquireMigrationLock.run(undefined, client);
    await client.query(`SET LOCAL lock_timeout = '10s'`);
    return fn(client);
  });
}

async function observe(db: Queryable): Promise<TableShape> {
  const [row] = await observeSubagentTableShape.run(undefined, db);
  return toTableShape(row);
}

async function apply(client: pg.PoolClient, ...names: [readonly SchemaScript[], string][]): Promise<void> {
  for (const [list, name] of names) await client.query(script(list, name).sql);
}

async function keyPresent(db: Queryable, key: string): Promise<boolean> {
  return (await readMetaKey.run({ key }, db)).length > 0;
}

export function createPostgresMigrationDialect(pool: pg.Pool): MigrationDialect {
  return {
    observeShape: () => observe(pool),
    keyPresent: (key) => keyPresent(pool, key),
    ensureKandevMeta: () =>
      locked(pool, async (client) => {
        if ((await observe(client)).kandevMetaPresent) return 'skipped';
        await apply(client, [packageSchema, 'kandev_meta']);
        return 'applied';
      }),

    createSubagentTable: () =>
      locked(pool, async (client) => {
        if ((await observe(client)).tablePresent) return 'skipped';
        await apply(client, [packageSchema, 'task_session_subagents'], [packageSchema, 'task_session_subagents_indexes']);
        return 'applied';
      }),

    upgradePreAmendmentTable: () =>
      locked(pool, async (client) => {
        const shape = await observe(client);
        if (!shape.tablePresent || executionIdentityShapeHolds(shape)) return 'skipped';
        await apply(client, [upgradeSchema, 'execution_identity_key']);
        // Verified before COMMIT: a script that ran but did not reach the end state (an
        // unforeseen shape) is rolled back rather than left half-applied (AC-33a).
        if (!executionIdentityShapeHolds(await observe(client))) throw new Error('the upgrade ran but the AC-33 end state does not hold; rolled back');
        return 'applied';
      }),

    observeExecutionIdentityShape: async () => executionIdentityShapeHolds(await observe(pool)),

    writeKeyOnce: (key, sample) =>
      locked(pool, async (client) => {
        if (await keyPresent(client, key)) return 'skipped'; // AC-24 point 5: never rewritten
        await writeMetaKeyOnce.run({ key, value: sample() }, client);
        return 'applied';
      }),

    helperSteps: [
      {
        name: MIGRATION_STEP.ensureJsonHelpers,
        run: () =>
          locked(pool, async (client) => {
            if ((await observe(client)).jsonHelperPresent) return 'skipped';
            await apply(client, [packageSchema, 'json_helpers']);
            return 'applied';
          }),
      },
    ],

    endStateSteps: [
      {
        name: MIGRATION_STEP.widenMetricColumns,
        run: () =>
          locked(pool, async (client) => {
            if ((await observe(client)).narrowMetricColumns === 0) return 'skipped';
            await apply(client, [upgradeSchema, 'widen_metric_columns']);
            return 'applied';
          }),
      },
      {
        name: MIGRATION_STEP.ensureSubagentIndexes,
        run: () =>
          locked(pool, async (client) => {
            if ((await observe(client)).missingSecondaryIndexes === 0) return 'skipped';
            await apply(client, [packageSchema, 'task_session_subagents_indexes']);
            return 'applied';
          }),
      },
    ],

    backfill: (sampleCaptureSince) =>
      locked(pool, async (client) => {
        // AC-24d: the guard is BOTH keys, re-read under the lock; a partial pair re-runs (the
        // INSERT is then a no-op, the present key stays as it is, the missing one appears).
        const present = [await keyPresent(client, ACTIVATION_KEYS.captureSince), await keyPresent(client, ACTIVATION_KEYS.backfillThrough)];
        if (present.every(Boolean)) return 'skipped';
        const [high] = await readBackfillThrough.run(undefined, client); // AC-24d: before the INSERT
        if (typeof high?.backfill_through !== 'string') throw new Error('readBackfillThrough returned no value');
        await backfillSubagentContexts.run(undefined, client);
        const captureSince = sampleCaptureSince(); // AC-24 point 4: after the INSERT completed
        await writeMetaKeyOnce.run({ key: ACTIVATION_KEYS.backfillThrough, value: high.backfill_through }, client);
        await writeMetaKeyOnce.run({ key: ACTIVATION_KEYS.captureSince, value: captureSince }, client);
        return 'applied';
      }),
  };
}

export async function runPostgresMigrations(pool: pg.Pool, ctx: StoreContext): Promise<MigrationReport> {
  return runMigrationPass(createPostgresMigrationDialect(pool), ctx);
}
