// runMigrations() on SQLite: the primitives and the schema steps the neutral pass
// (src/migrations/) sequences. Every locked body is one BEGIN IMMEDIATE transaction — the
// database's single write lock is the migration lock, so two processes migrating at once take
// turns and each re-reads the shape and the keys under it — run synchronously from start to
// finish (src/migrations/flow.ts), and runs only generated statements and schema scripts.
import type { Database } from 'better-sqlite3';
import {
  addColumnSchema,
  countBackfillSessionsAfter,
  deleteMetaKey,
  nextBackfillSessions,
  observeSubagentTableShape,
  packageSchema,
  probeStoreTables,
  readBackfillThrough,
  readDatabaseVersion,
  readMetaKey,
  readSubagentTableHostObjects,
  upgradeSchema,
  upsertMetaKey,
  writeMetaKeyOnce,
} from '../../generated/sqlite/index.js';
import type { StoreContext } from '../dialect.js';
import { addSubagentColumnsStep } from '../migrations/column-step.js';
import { runSync } from '../migrations/flow.js';
import {
  schemaScript,
  type BackfillPacing,
  type MigrationDatabase,
  type MigrationPrimitives,
  type PauseStep,
  type SchemaScript,
} from '../migrations/migration-database.js';
import { MAX_CHUNK_SESSIONS } from '../migrations/backfill-step.js';
import { maxStageRowids } from '../migrations/backfill-stage.js';
import { runMigrationPass } from '../migrations/migration-pass.js';
import { MIGRATION_STEP } from '../migrations/step-names.js';
import { executionIdentityShapeHolds, sqliteTableShape } from '../migrations/table-shape.js';
import { SQLITE_JSON_HELPER } from '../migrations/json-helper.js';
import type { BackfillChunkOptions, MigrationOptions, MigrationReport } from '../types.js';
import { sqliteStaging } from './backfill-staging.js';
import { stageFreshness, type StageFreshness } from './stage-freshness.js';
import { withImmediateTransaction } from './transaction.js';

/**
 * A concurrent migrator may hold the write lock for a whole backfill; wait at least this
 * long for it (better-sqlite3's own default) even if the host configured less.
 */
const MIN_BUSY_TIMEOUT_MS = 5000;

/** `->` (backfill_subagent_contexts.sql) is the newest feature any statement or script uses. */
const MINIMUM_VERSION = { number: 3_038_000, text: '3.38.0', reason: 'its statements use the -> JSON operator, new in SQLite 3.38.0' };

const script = (list: readonly SchemaScript[], name: string) => schemaScript(list, name, 'sqlite');

const KANDEV_META = script(packageSchema, 'kandev_meta');
const SUBAGENT_TABLE = script(packageSchema, 'task_session_subagents');
const SUBAGENT_INDEXES = script(packageSchema, 'task_session_subagents_indexes');
const SET_ASIDE_PRE_AMENDMENT_TABLE = script(upgradeSchema, 'set_aside_pre_amendment_table');
const COPY_PRE_AMENDMENT_ROWS = script(upgradeSchema, 'copy_pre_amendment_rows');
const USAGE_LEDGER = script(packageSchema, 'usage_ledger');

function sqliteSteps(db: Database): MigrationDatabase['steps'] {
  return {
    beforeEndState: [
      { name: MIGRATION_STEP.ensureKandevMeta, needed: (s) => !s.kandevMetaPresent, scripts: [KANDEV_META] },
      { name: MIGRATION_STEP.createSubagentTable, needed: (s) => !s.tablePresent, scripts: [SUBAGENT_TABLE, SUBAGENT_INDEXES] },
      {
        // AC-33: the two-column key is an inline table constraint SQLite cannot alter, so the
        // table is rebuilt from the fresh DDL (schema/sqlite/upgrade/001 says how).
        name: MIGRATION_STEP.upgradePreAmendmentTable,
        needed: (s) => s.tablePresent && !executionIdentityShapeHolds(s),
        // The copy writes the 'unknown' sentinel into every row; on a table that already has
        // the column it would overwrite real execution ids, so that shape is refused.
        refusal: (s) =>
          s.executionColumnPresent ? 'task_session_subagents has agent_execution_id but not the AC-33 key set: unrecognised shape, left as it is' : undefined,
        scripts: [SET_ASIDE_PRE_AMENDMENT_TABLE, SUBAGENT_TABLE, COPY_PRE_AMENDMENT_ROWS, SUBAGENT_INDEXES],
        // Issue #16 item 6: the host's indexes and triggers come back; a host column refuses.
        carriesHostObjects: true,
        verify: true,
        around: (transaction) => withRebuildPragmas(db, transaction),
      },
    ],
    onceEndStateHolds: [
      addSubagentColumnsStep(addColumnSchema),
      { name: MIGRATION_STEP.ensureSubagentIndexes, needed: (s) => s.missingSecondaryIndexes !== 0, scripts: [SUBAGENT_INDEXES] },
      // The usage ledger (issue 33): new tables only, CREATE … IF NOT EXISTS; nothing existing changes.
      { name: MIGRATION_STEP.ensureUsageLedger, needed: (s) => s.usageTablesMissing !== 0, scripts: [USAGE_LEDGER] },
    ],
  };
}

function sqlitePrimitives(db: Database, freshness: StageFreshness): MigrationPrimitives {
  const staging = sqliteStaging(db, freshness);
  return {
    observeShape: () => sqliteTableShape(observeSubagentTableShape.one({}, db)),
    observeJsonHelper: () => SQLITE_JSON_HELPER,
    keyPresent: (key) => readMetaKey.maybeOne({ key }, db) !== undefined,
    readKey: (key) => {
      const value = readMetaKey.maybeOne({ key }, db)?.value;
      return value === undefined || value === null ? undefined : String(value);
    },
    upsertKey: (key, value) => void upsertMetaKey.exec({ key, value }, db),
    deleteKey: (key) => void deleteMetaKey.exec({ key }, db),
    nextBackfillSessions: (after, limit) => nextBackfillSessions.many({ after, limit }, db).map((r) => String(r.id)),
    writeKeyOnce: (key, value) => void writeMetaKeyOnce.exec({ key, value }, db),
    readBackfillThrough: () => {
      const through = readBackfillThrough.one({}, db).backfill_through;
      if (typeof through !== 'string') throw new Error('readBackfillThrough returned no value');
      return through;
    },
    // The chunk's rows through the temp rows table, as a chunk computed ahead writes them (sqliteStaging).
    insertBackfillRows: (chunk) => {
      staging.computeRows(chunk);
      return staging.keepRows();
    },
    countSessionsAfter: (after) => Number(countBackfillSessionsAfter.one({ after }, db).sessions),
    staging,
    applySchema: (s) => void db.exec(s.sql),
    readHostObjects: () => readSubagentTableHostObjects.many({}, db),
    readVersion: () => {
      const row = readDatabaseVersion.one({}, db);
      return { number: Number(row.version_number), text: String(row.version) };
    },
    probeHostTables: () => {
      const row = probeStoreTables.one({}, db);
      return { task_sessions: Number(row.task_sessions) === 1, task_session_messages: Number(row.task_session_messages) === 1 };
    },
  };
}

/** Internal: `minimumVersion` exists for the tests of the too-old path. */
export function createSqliteMigrationDatabase(db: Database, options: { minimumVersion?: MigrationDatabase['minimumVersion'] } = {}): MigrationDatabase {
  // The staging table's ranking columns are used only while nothing changed since they were staged.
  const freshness = stageFreshness(db);
  const primitives = sqlitePrimitives(db, freshness);
  return {
    engine: 'SQLite',
    minimumVersion: options.minimumVersion ?? MINIMUM_VERSION,
    steps: sqliteSteps(db),
    // async only for the signature: the body runs to COMMIT before the promise is returned.
    locked: async (body) => freshness.own(() => withImmediateTransaction(db, () => runSync(body(primitives)))),
    unlocked: async (body) => freshness.own(() => runSync(body(primitives))),
    // WAL: a reader never blocks a writer, so work computed outside the lock lets a host writer in.
    backfillPacing: async (overrides) => sqliteBackfillPacing(overrides, String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal'),
  };
}

/**
 * SQLite has one writer: while a chunk runs, a host's write on another connection waits in
 * its busy handler, which polls at growing intervals (SQLite's default: 1, 2, 5, 10, 15, 20,
 * 25, 25, 25, 50, 50, then 100 ms; the sleeps add up to 228 ms before the first of 100). A
 * chunk aims at 200 ms (four fifths of it, ./../migrations/backfill-pacing.ts) and the lock is
 * then left free for at least as long as the sleep a writer that began waiting during the
 * chunk can be in when it ends, so that writer polls inside the pause, gets the lock, and
 * waits about one chunk (measured in test/migrations-backfill-busy-host.test.ts). Without the
 * pause the next chunk would take the lock back before the writer's next poll, chunk after
 * chunk. After a chunk of T ms that sleep is at most the one that follows the sleeps adding up
 * to T or less: 5 ms after a chunk under 8 ms, 25 ms under 128 ms, 50 ms under 228 ms, 100 ms
 * beyond. The pause is twice that sleep below 53 ms (a short chunk, a short pause: a sparse
 * store's phase-2 chunks take a few ms each), 50 ms up to 200 ms, and 120 ms after a chunk of
 * 200 ms or more (a loaded machine stretches them; with 50 ms there a writer once missed pause
 * after pause, 845 ms behind chunks of under 300 ms).
 */
export const SQLITE_CHUNK_TARGET_MS = 200;
/**
 * How many times the target a phase-1 range's read, or a phase-2 chunk's computation, may take
 * outside the lock, in WAL mode (BackfillPacing.aheadTargets): the transaction that keeps it is
 * sized to the target, so the host writer's wait stays one target's. Bounded: a longer
 * computation is likelier to go stale (a host commit to the chunk's sessions, a VACUUM), and a
 * read transaction that long keeps a checkpoint from resetting the WAL. At 8 (1.6 s) the 1M
 * benchmark stores take two to four ranges and five to seven chunks; BENCHMARKS.md has the runs.
 */
export const SQLITE_AHEAD_TARGETS = 8;
/** The pause after a transaction shorter than `belowMs`, the first entry that applies (above). */
export const SQLITE_PAUSE_SCHEDULE: readonly PauseStep[] = [
  { belowMs: 1, pauseMs: 2 },
  { belowMs: 3, pauseMs: 4 },
  { belowMs: 8, pauseMs: 10 },
  { belowMs: 18, pauseMs: 20 },
  { belowMs: 33, pauseMs: 30 },
  { belowMs: 53, pauseMs: 40 },
  { belowMs: 200, pauseMs: 50 },
  { belowMs: Infinity, pauseMs: 120 },
];

export function sqliteBackfillPacing(overrides: BackfillChunkOptions | undefined, wal = true): BackfillPacing {
  return {
    targetMs: overrides?.targetMs ?? SQLITE_CHUNK_TARGET_MS,
    maxSessions: overrides?.maxSessions ?? MAX_CHUNK_SESSIONS,
    maxStageRowids: maxStageRowids(overrides?.maxStageRowids),
    // A host's own pauseMs is kept as it is, after any transaction; else the schedule above.
    pauseMs: overrides?.pauseMs ?? 0,
    ...(overrides?.pauseMs === undefined ? { pauseSchedule: SQLITE_PAUSE_SCHEDULE } : {}),
    // A transaction whose work was computed ahead holds the lock only to keep it; the next
    // computation, outside the lock, is the writer's opening, in WAL mode (in a rollback journal
    // a reader blocks a writer's commit): it counts toward the pause (src/migrations/backfill-stage.ts).
    ...(overrides?.pauseMs === undefined && wal ? { pauseOverlapsAhead: true } : {}),
    // In WAL mode the work computed ahead lets a host writer in: each transaction is sized by
    // the lock it holds, its computation by SQLITE_AHEAD_TARGETS times the target (above).
    ...(wal ? { aheadTargets: SQLITE_AHEAD_TARGETS } : {}),
  };
}

/**
 * SQLite's documented table-rebuild procedure: foreign-key enforcement off around the
 * transaction (it cannot change inside one; no table references this one, and a row whose
 * session is already gone survives instead of failing the copy), and legacy_alter_table on
 * so renaming the old table aside does not repoint a host view or trigger at it. Both are
 * restored to the connection's own settings afterwards, whatever happens.
 */
function withRebuildPragmas<T>(db: Database, transaction: () => Promise<T>): Promise<T> {
  const foreignKeys = db.pragma('foreign_keys', { simple: true });
  const legacyAlterTable = db.pragma('legacy_alter_table', { simple: true });
  db.pragma('foreign_keys = OFF');
  db.pragma('legacy_alter_table = ON');
  try {
    // Not awaited: `locked` has run the transaction to COMMIT or ROLLBACK before it returns,
    // so the settings are restored with no gap in which other code could use the connection.
    return transaction();
  } finally {
    db.pragma(`foreign_keys = ${Number(foreignKeys) ? 'ON' : 'OFF'}`);
    db.pragma(`legacy_alter_table = ${Number(legacyAlterTable) ? 'ON' : 'OFF'}`);
  }
}

/** Internal: `options` exists for the tests of the too-old path; the store passes none. */
export async function runSqliteMigrations(
  db: Database,
  ctx: StoreContext,
  options?: Parameters<typeof createSqliteMigrationDatabase>[1],
  migration?: MigrationOptions,
): Promise<MigrationReport> {
  let restoreBusyTimeout: number | null = null;
  try {
    const current = Number(db.pragma('busy_timeout', { simple: true }));
    if (current < MIN_BUSY_TIMEOUT_MS) {
      db.pragma(`busy_timeout = ${MIN_BUSY_TIMEOUT_MS}`);
      restoreBusyTimeout = current;
    }
  } catch {
    // an unusable connection: every step fails below and reports why
  }
  try {
    return await runMigrationPass(createSqliteMigrationDatabase(db, options), ctx, migration);
  } finally {
    if (restoreBusyTimeout !== null) {
      try {
        db.pragma(`busy_timeout = ${restoreBusyTimeout}`);
      } catch {
        // the connection went away mid-pass; nothing to restore
      }
    }
  }
}
