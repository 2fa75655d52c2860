// runMigrations() on PostgreSQL: the primitives and the schema steps the neutral pass
// (src/migrations/) sequences. Every locked body is one transaction on a dedicated pooled
// client that first takes the migration's advisory transaction lock
// (queries/postgres/acquire_migration_lock.sql) with a bounded wait, so two processes or pools
// migrating at once take turns and each re-reads the shape and the keys under the lock;
// COMMIT or ROLLBACK releases it.
import type pg from 'pg';
import {
  acquireMigrationLock,
  addColumnSchema,
  backfillSubagentContexts,
  backfillWindowContexts,
  countBackfillChunkMessages,
  countBackfillSessionsAfter,
  countBackfillWindowMessages,
  deleteMetaKey,
  nextBackfillSessions,
  nextBackfillWindow,
  lockBackfillSessions,
  observeSubagentTableShape,
  packageSchema,
  probeCreatedAtIndex,
  probeStoreTables,
  readBackfillThrough,
  readDatabaseVersion,
  readMetaKey,
  readStatementTimeout,
  readSubagentTableHostObjects,
  setLocalBitmapScans,
  setLocalLockTimeout,
  setLocalTimeSettings,
  setLocalSearchPath,
  setLocalStatementTimeout,
  setLocalWorkMem,
  upgradeSchema,
  upsertMetaKey,
  writeMetaKeyOnce,
} from '../../generated/postgres/index.js';
import type { StoreContext } from '../dialect.js';
import { addSubagentColumnsStep } from '../migrations/column-step.js';
import { runAsync } from '../migrations/flow.js';
import { jsonHelperRefusal } from '../migrations/json-helper.js';
import { schemaScript, type BackfillPacing, type MigrationDatabase, type MigrationPrimitives, type SchemaScript } from '../migrations/migration-database.js';
import { MAX_CHUNK_SESSIONS } from '../migrations/backfill-step.js';
import { maxStageRowids } from '../migrations/backfill-stage.js';
import { maxWindowUs, windowLimitMs } from '../migrations/backfill-windows.js';
import { runMigrationPass } from '../migrations/migration-pass.js';
import { MIGRATION_STEP } from '../migrations/step-names.js';
import { executionIdentityShapeHolds, toTableShape } from '../migrations/table-shape.js';
import type { BackfillChunkOptions, MigrationOptions, MigrationReport } from '../types.js';
import { observePostgresJsonHelper } from './json-helper.js';
import { BEGIN_READ_COMMITTED, withTransaction } from './transaction.js';

type Queryable = pg.Pool | pg.PoolClient;

/** The oldest server CI runs the whole suite on (`npm run test:pg15`). */
const MINIMUM_VERSION = { number: 150_000, text: '15', reason: 'the oldest PostgreSQL it is tested on' };

const script = (list: readonly SchemaScript[], name: string) => schemaScript(list, name, 'postgres');

const KANDEV_META = script(packageSchema, 'kandev_meta');
const SUBAGENT_TABLE = script(packageSchema, 'task_session_subagents');
const SUBAGENT_INDEXES = script(packageSchema, 'task_session_subagents_indexes');
const JSON_HELPERS = script(packageSchema, 'json_helpers');
const EXECUTION_IDENTITY_KEY = script(upgradeSchema, 'execution_identity_key');
const WIDEN_METRIC_COLUMNS = script(upgradeSchema, 'widen_metric_columns');
const USAGE_LEDGER = script(packageSchema, 'usage_ledger');

const POSTGRES_STEPS: MigrationDatabase['steps'] = {
  beforeEndState: [
    { name: MIGRATION_STEP.ensureKandevMeta, needed: (s) => !s.kandevMetaPresent, scripts: [KANDEV_META] },
    { name: MIGRATION_STEP.createSubagentTable, needed: (s) => !s.tablePresent, scripts: [SUBAGENT_TABLE, SUBAGENT_INDEXES] },
    // The backfill and the health queries need it whatever the table's shape (AC-23b).
    // Issue #16 item 3: a function another role planted is never created over (CREATE OR
    // REPLACE keeps its owner) nor run; the step fails with a WARN naming it.
    {
      name: MIGRATION_STEP.ensureJsonHelpers,
      needed: (s) => s.jsonHelper.state !== 'current',
      refusal: (s) => (s.jsonHelper.state === 'untrusted' ? jsonHelperRefusal(s.jsonHelper) : undefined),
      scripts: [JSON_HELPERS],
      verify: true,
    },
    {
      // AC-33: column + key swap in place, one DO block (schema/postgres/upgrade/001 says how).
      name: MIGRATION_STEP.upgradePreAmendmentTable,
      needed: (s) => s.tablePresent && !executionIdentityShapeHolds(s),
      scripts: [EXECUTION_IDENTITY_KEY],
      verify: true,
    },
  ],
  onceEndStateHolds: [
    addSubagentColumnsStep(addColumnSchema),
    // DESIGN §3: metric columns an earlier host build declared INTEGER become BIGINT.
    { name: MIGRATION_STEP.widenMetricColumns, needed: (s) => s.narrowMetricColumns !== 0, scripts: [WIDEN_METRIC_COLUMNS] },
    { name: MIGRATION_STEP.ensureSubagentIndexes, needed: (s) => s.missingSecondaryIndexes !== 0, scripts: [SUBAGENT_INDEXES] },
    // The usage ledger (issue 33): new tables only, CREATE … IF NOT EXISTS; nothing existing changes.
    { name: MIGRATION_STEP.ensureUsageLedger, needed: (s) => s.usageTablesMissing !== 0, scripts: [USAGE_LEDGER] },
  ],
};

/**
 * The backfill's sort and hash budget: PostgreSQL's minimum. Measured on the benchmark stores
 * (backend private memory, dense 1M-message store against the reference store): 1.93× at the
 * default 4MB, 1.41× at 1MB, 1.23× at 256kB, 1.11× here, and the backfill took no longer at
 * any of them; what is left is the foreign key's queued checks, about 21 bytes per inserted
 * row (BENCHMARKS.md, "Issue 20, fifth round").
 */
export const BACKFILL_WORK_MEM = '64kB';

function postgresPrimitives(db: Queryable): MigrationPrimitives {
  return {
    observeJsonHelper: () => observePostgresJsonHelper(db),
    observeShape: async () => {
      const row = await observeSubagentTableShape.one(undefined, db);
      return toTableShape(row, await observePostgresJsonHelper(db));
    },
    keyPresent: async (key) => (await readMetaKey.maybeOne({ key }, db)) !== undefined,
    readKey: async (key) => (await readMetaKey.maybeOne({ key }, db))?.value,
    upsertKey: async (key, value) => void (await upsertMetaKey.exec({ key, value }, db)),
    deleteKey: async (key) => void (await deleteMetaKey.exec({ key }, db)),
    nextBackfillSessions: async (after, limit) => (await nextBackfillSessions.many({ after, limit }, db)).map((r) => r.id),
    lockBackfillSessions: async (sessions) => (await lockBackfillSessions.many({ sessionIds: [...sessions] }, db)).map((r) => r.id),
    writeKeyOnce: async (key, value) => void (await writeMetaKeyOnce.exec({ key, value }, db)),
    readBackfillThroughWindow: async (before, limit) => {
      // Both statements that test JSON run in a locked transaction after the helper's probe,
      // with the search_path that reaches pg_catalog and the package's helper first.
      await setLocalSearchPath.one(undefined, db);
      await setLocalTimeSettings.one(undefined, db); // the edge as ISO text, in UTC (the query file says why)
      const high = await readBackfillThrough.one({ before, limit }, db);
      if (typeof high.backfill_through !== 'string') throw new Error('readBackfillThrough returned no value');
      return { through: high.backfill_through, edge: high.edge };
    },
    insertBackfillRows: async ({ sessions }) => {
      // In the chunk's transaction (always locked): its sort and hash stay within a fixed
      // budget whatever the store's size or the server's work_mem (the query file says why).
      await setLocalWorkMem.one({ workMem: BACKFILL_WORK_MEM }, db);
      await setLocalSearchPath.one(undefined, db);
      await setLocalTimeSettings.one(undefined, db); // a timestamptz created_at read as UTC
      return backfillSubagentContexts.exec({ sessionIds: [...sessions] }, db);
    },
    windows: {
      available: async () => (await probeCreatedAtIndex.one(undefined, db)).present,
      nextWindow: async (top, widthUs, messages) => {
        // Its edges as ISO text, which the runner keeps and passes back, in UTC (the query file says why).
        await setLocalTimeSettings.one(undefined, db);
        const row = await nextBackfillWindow.one({ top, widthUs, messages }, db);
        return row.lo === null ? undefined : { lo: row.lo, below: row.below, widthUs: row.width_us };
      },
      insertWindowRows: async (lo, top, limitMs) => {
        // As a session chunk (below), read as a bitmap heap scan, and under the window's own time
        // limit (set_local_bitmap_scans.sql and set_local_statement_timeout.sql say why).
        await setLocalWorkMem.one({ workMem: BACKFILL_WORK_MEM }, db);
        await setLocalSearchPath.one(undefined, db);
        await setLocalTimeSettings.one(undefined, db); // a timestamptz created_at read as UTC
        await setLocalBitmapScans.one(undefined, db);
        if (limitMs !== undefined) await setLocalStatementTimeout.one({ statementTimeout: `${limitMs}ms` }, db);
        return backfillWindowContexts.exec({ lo, top }, db);
      },
      countWindowMessages: async (lo, top) => (await countBackfillWindowMessages.one({ lo, top }, db)).messages,
    },
    countSessionsAfter: async (after) => (await countBackfillSessionsAfter.one({ after }, db)).sessions,
    countChunkMessages: async ({ sessions }) => (await countBackfillChunkMessages.one({ sessionIds: [...sessions] }, db)).messages,
    applySchema: async (s) => void (await db.query(s.sql)),
    // No PostgreSQL step needs it (its upgrade is in place and keeps them); declared for the interface.
    readHostObjects: () => readSubagentTableHostObjects.many(undefined, db),
    readVersion: async () => {
      const row = await readDatabaseVersion.one(undefined, db);
      return { number: row.version_number, text: row.version };
    },
    probeHostTables: async () => {
      const row = await probeStoreTables.one(undefined, db);
      return { task_sessions: row.task_sessions === true, task_session_messages: row.task_session_messages === true };
    },
  };
}

/** Internal: `minimumVersion` exists for the tests of the too-old path. */
export function createPostgresMigrationDatabase(pool: pg.Pool, options: { minimumVersion?: MigrationDatabase['minimumVersion'] } = {}): MigrationDatabase {
  return {
    engine: 'PostgreSQL',
    minimumVersion: options.minimumVersion ?? MINIMUM_VERSION,
    steps: POSTGRES_STEPS,
    /**
     * The lock wait is bounded by a generous lock_timeout (a concurrent migrator may be running
     * the whole backfill); once held, waits for table locks the host holds are bounded more
     * tightly, so a busy host table delays boot by seconds at most and the step is retried on
     * the next run.
     * READ COMMITTED whatever the database's or role's default: every statement must see what
     * committed before it (a second migrator's keys and cursor once it holds the lock, the mark
     * read before a chunk's INSERT). Under REPEATABLE READ the snapshot is taken by the first
     * statement, before the lock is granted, and the migrators that waited failed with 40001.
     */
    locked: (body) =>
      withTransaction(
        pool,
        async (client) => {
          await setLocalLockTimeout.one({ lockTimeout: '60s' }, client);
          await acquireMigrationLock.one(undefined, client);
          await setLocalLockTimeout.one({ lockTimeout: '10s' }, client);
          return runAsync(body(postgresPrimitives(client)));
        },
        BEGIN_READ_COMMITTED,
      ),
    unlocked: (body) => runAsync(body(postgresPrimitives(pool))),
    backfillPacing: async (overrides) => postgresBackfillPacing((await readStatementTimeout.one(undefined, pool)).ms, overrides),
  };
}

/**
 * Each chunk aims at half a second: long enough that the per-chunk work (the lock, the guard,
 * the cursor) stays a few percent, short enough that a host's delete of a chunk's session
 * waits about that long. Under a role's statement_timeout the target is a fifth of it, so a
 * chunk that runs several times its target still completes; the package never turns the
 * timeout off. No pause: the host's writes never wait for the migration lock.
 */
export const POSTGRES_CHUNK_TARGET_MS = 500;

export function postgresBackfillPacing(statementTimeoutMs: number, overrides: BackfillChunkOptions | undefined): BackfillPacing {
  const fitted = statementTimeoutMs > 0 ? Math.min(POSTGRES_CHUNK_TARGET_MS, statementTimeoutMs / 5) : POSTGRES_CHUNK_TARGET_MS;
  const targetMs = overrides?.targetMs ?? fitted;
  const limitMs = windowLimitMs(targetMs, statementTimeoutMs);
  return {
    targetMs,
    ...(limitMs === undefined ? {} : { windowLimitMs: limitMs }),
    maxSessions: overrides?.maxSessions ?? MAX_CHUNK_SESSIONS,
    maxStageRowids: maxStageRowids(overrides?.maxStageRowids),
    maxWindowUs: maxWindowUs(overrides?.maxWindowMs),
    walk: overrides?.walk === 'sessions' ? 'sessions' : 'windows',
    pauseMs: overrides?.pauseMs ?? 0,
  };
}

/** Internal: `options` exists for the tests of the too-old path; the store passes none. */
export async function runPostgresMigrations(
  pool: pg.Pool,
  ctx: StoreContext,
  options?: Parameters<typeof createPostgresMigrationDatabase>[1],
  migration?: MigrationOptions,
): Promise<MigrationReport> {
  return runMigrationPass(createPostgresMigrationDatabase(pool, options), ctx, migration);
}
