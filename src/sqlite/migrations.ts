// runMigrations() on SQLite: the dialect steps the neutral pass (src/migrations/) sequences.
// Every step is one BEGIN IMMEDIATE transaction — the database's single write lock is the
// migration lock, so two processes migrating at once take turns and each re-reads the shape
// and the keys under it — and runs only generated statements and schema scripts.
import type { Database } from 'better-sqlite3';
import {
  backfillSubagentContexts,
  observeSubagentTableShape,
  packageSchema,
  readBackfillThrough,
  readMetaKey,
  upgradeSchema,
  writeMetaKeyOnce,
  type SchemaScript,
} from '../../generated/sqlite/index.js';
import { ACTIVATION_KEYS } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { runMigrationPass } from '../migrations/migration-pass.js';
import type { AppliedOrSkipped, MigrationDialect } from '../migrations/migration-dialect.js';
import { MIGRATION_STEP } from '../migrations/step-names.js';
import { executionIdentityShapeHolds, toTableShape, type TableShape } from '../migrations/table-shape.js';
import type { MigrationReport } from '../types.js';
import { withImmediateTransaction } from './transaction.js';

/**
 * A concurrent migrator may hold the write lock for a whole backfill; wait at least this
 * long for it (better-sqlite3's own default) even if the host configured less.
 */
const MIN_BUSY_TIMEOUT_MS = 5000;

function script(list: readonly SchemaScript[], name: string): SchemaScript {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`schema script ${name} is missing from generated/sqlite/schema.ts`);
  return found;
}

export function createSqliteMigrationDialect(db: Database): MigrationDialect {
  const observe = (): TableShape => toTableShape(observeSubagentTableShape.get({}, db));
  const apply = (...names: [readonly SchemaScript[], string][]) => {
    for (const [list, name] of names) db.exec(script(list, name).sql);
  };
  const locked = (fn: () => AppliedOrSkipped): Promise<AppliedOrSkipped> => Promise.resolve(withImmediateTransaction(db, fn));
  const keyPresent = (key: string) => readMetaKey.get({ key }, db) !== undefined;

  return {
    ensureKandevMeta: () =>
      locked(() => {
        if (observe().kandevMetaPresent) return 'skipped';
        apply([packageSchema, 'kandev_meta']);
        return 'applied';
      }),

    createSubagentTable: () =>
      locked(() => {
        if (observe().tablePresent) return 'skipped';
        apply([packageSchema, 'task_session_subagents'], [packageSchema, 'task_session_subagents_indexes']);
        return 'applied';
      }),

    async upgradePreAmendmentTable() {
      const seen = observe();
      if (!seen.tablePresent || executionIdentityShapeHolds(seen)) return 'skipped';
      return withRebuildPragmas(db, () =>
        withImmediateTransaction(db, (): AppliedOrSkipped => {
          const shape = observe(); // under the write lock: another process may have done it
          if (!shape.tablePresent || executionIdentityShapeHolds(shape)) return 'skipped';
          if (shape.executionColumnPresent) {
            // The rebuild copies the pre-amendment column list with the 'unknown' sentinel;
            // on any other shape it would overwrite real execution ids, so it refuses.
            throw new Error('task_session_subagents has agent_execution_id but not the AC-33 key set: unrecognised shape, left as it is');
          }
          apply(
            [upgradeSchema, 'set_aside_pre_amendment_table'],
            [packageSchema, 'task_session_subagents'],
            [upgradeSchema, 'copy_pre_amendment_rows'],
            [packageSchema, 'task_session_subagents_indexes'],
          );
          if (!executionIdentityShapeHolds(observe())) throw new Error('the rebuild ran but the AC-33 end state does not hold; rolled back');
          return 'applied';
        }),
      );
    },

    observeExecutionIdentityShape: async () => executionIdentityShapeHolds(observe()),

    writeKeyOnce: (key, sample) =>
      locked(() => {
        if (keyPresent(key)) return 'skipped'; // AC-24 point 5: a present key is never rewritten
        writeMetaKeyOnce.run({ key, value: sample() }, db);
        return 'applied';
      }),

    observeShape: async () => observe(),
    keyPresent: async (key) => keyPresent(key),

    helperSteps: [],

    endStateSteps: [
      {
        name: MIGRATION_STEP.ensureSubagentIndexes,
        run: () =>
          locked(() => {
            if (observe().missingSecondaryIndexes === 0) return 'skipped';
            apply([packageSchema, 'task_session_subagents_indexes']);
            return 'applied';
          }),
      },
    ],

    backfill: (sampleCaptureSince) =>
      locked(() => {
        // AC-24d: the guard is BOTH keys, re-read under the write lock; a partial pair re-runs
        // (the INSERT is then a no-op, the present key stays as it is, the missing one appears).
        if (keyPresent(ACTIVATION_KEYS.captureSince) && keyPresent(ACTIVATION_KEYS.backfillThrough)) return 'skipped';
        const through = readBackfillThrough.get({}, db)?.backfill_through; // AC-24d: before the INSERT
        if (typeof through !== 'string') throw new Error('readBackfillThrough returned no value');
        backfillSubagentContexts.run({}, db);
        const captureSince = sampleCaptureSince(); // AC-24 point 4: after the INSERT completed
        writeMetaKeyOnce.run({ key: ACTIVATION_KEYS.backfillThrough, value: through }, db);
        writeMetaKeyOnce.run({ key: ACTIVATION_KEYS.captureSince, value: captureSince }, db);
        return 'applied';
      }),
  };
}

/**
 * SQLite's documented table-rebuild procedure: foreign-key enforcement off around the
 * transaction (it cannot change inside one; no table references this one, and a row whose
 * session is already gone survives instead of failing the copy), and legacy_alter_table on
 * so renaming the old table aside does not repoint a host view or trigger at it. Both are
 * restored to the connection's own settings afterwards, whatever happens.
 */
function withRebuildPragmas<T>(db: Database, fn: () => T): T {
  const foreignKeys = db.pragma('foreign_keys', { simple: true });
  const legacyAlterTable = db.pragma('legacy_alter_table', { simple: true });
  db.pragma('foreign_keys = OFF');
  db.pragma('legacy_alter_table = ON');
  try {
    return fn();
  } finally {
    db.pragma(`foreign_keys = ${Number(foreignKeys) ? 'ON' : 'OFF'}`);
    db.pragma(`legacy_alter_table = ${Number(legacyAlterTable) ? 'ON' : 'OFF'}`);
  }
}

export async function runSqliteMigrations(db: Database, ctx: StoreContext): Promise<MigrationReport> {
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
    return await runMigrationPass(createSqliteMigrationDialect(db), ctx);
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
