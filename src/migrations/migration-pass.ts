// One runMigrations() pass, dialect-neutral: the step order AC-33c fixes, the gating that
// keeps the backfill off a stale shape, the replay fast path and the report. Each step is
// its own transaction (./migration-database.ts); a failing step is rolled back, WARN-logged
// with its name and reported, and the pass goes on with every step that does not depend on
// it, so whatever can succeed does and the rest retries on the next run (AC-20, AC-24a, AC-33a).
//
// Order (AC-33c: the shape change and the execution_since write come BEFORE the backfill):
//   [dialect steps before the end state]  ensure_kandev_meta, create_subagent_table,
//                                PostgreSQL's ensure_json_helpers, upgrade_pre_amendment_table
//   record_execution_since       AC-33b: OBSERVE the live schema; when clauses 1–3 hold,
//                                write subagent_context_execution_since if absent — however
//                                the end state came about, never gated on a rebuild firing
//   [dialect steps once the end state holds]  PostgreSQL's widen_metric_columns,
//                                ensure_subagent_indexes — so a failed AC-33 upgrade leaves
//                                the pre-amendment table wholly untouched (AC-33a)
//   backfill_subagent_contexts   AC-21…AC-24f (./backfill-step.ts), in chunks, each its own
//                                transaction — only when the end state was observed to hold
// Before all of them, two checks reported only when they fail: the engine's version
// (./database-version.ts), then the host's tables (./host-tables.ts); either stops the pass
// before anything is written.
import { ACTIVATION_KEYS } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { formatKeyInstant } from '../instant.js';
import type { MigrationOptions, MigrationReport, MigrationStep } from '../types.js';
import { backfillAndWriteKeys } from './backfill-step.js';
import { databaseTooOld } from './database-version.js';
import { hostTablesMissing } from './host-tables.js';
import { awaited } from './flow.js';
import type { AppliedOrSkipped, MigrationDatabase, SchemaStep } from './migration-database.js';
import { notRun, runStep, type NotRun } from './run-step.js';
import { runSchemaStep } from './schema-step.js';
import { MIGRATION_STEP, type MigrationStepName } from './step-names.js';
import { executionIdentityShapeHolds, type TableShape } from './table-shape.js';

const END_STATE_MISSING =
  'not run: the AC-33 end state (agent_execution_id NOT NULL, the three-column key, no two-column key) ' +
  'was not observed to hold; retried on the next run (AC-33c)';
const ALREADY_CURRENT = 'already current: complete shape and all three activation keys present';
const VERSION_TOO_OLD = `not run: ${MIGRATION_STEP.checkDatabaseVersion} failed`;
const HOST_TABLES_MISSING = `not run: ${MIGRATION_STEP.checkHostTables} failed`;
const BACKFILL_DEFERRED = "deferred: runMigrations({ backfill: 'defer' }); the next runMigrations() runs it";

/** What earlier steps of this pass established for later ones. */
interface PassState {
  /** Set by record_execution_since from its observation (before its key write). */
  endStateHolds: boolean;
}

/**
 * One entry of the pass. The fast path asks whether the step has anything left to do — on
 * the observed shape, and by the activation keys it writes — and the real pass calls `run`.
 */
interface PlannedStep {
  readonly name: MigrationStepName;
  shapeIsCurrent(shape: TableShape): boolean;
  /** The activation keys this step writes; while one is absent the step is not current. */
  readonly writesKeys: readonly string[];
  run(state: PassState): Promise<AppliedOrSkipped | NotRun>;
}

/** AC-24 point 3: every key this build writes is RFC3339 with nine fraction digits. */
function keyInstant(ctx: StoreContext): string {
  const ns = ctx.clock();
  if (typeof ns !== 'bigint') throw new TypeError('clock() must return a bigint of nanoseconds');
  return formatKeyInstant(ns);
}

function schemaStep(db: MigrationDatabase, step: SchemaStep): PlannedStep {
  return { name: step.name, shapeIsCurrent: (shape) => !step.needed(shape), writesKeys: [], run: () => runSchemaStep(db, step) };
}

/** A step that runs only when record_execution_since observed the end state this pass. */
function onceEndStateHolds(step: PlannedStep): PlannedStep {
  return { ...step, run: (state) => (state.endStateHolds ? step.run(state) : Promise.resolve(notRun(END_STATE_MISSING))) };
}

const recordExecutionSince = (db: MigrationDatabase, ctx: StoreContext): PlannedStep => ({
  name: MIGRATION_STEP.recordExecutionSince,
  shapeIsCurrent: executionIdentityShapeHolds,
  writesKeys: [ACTIVATION_KEYS.executionSince],
  async run(state) {
    // Set from the observation itself, before the key write, so a failing key write (the
    // state AC-33b's next boot self-heals) does not keep the backfill from running.
    state.endStateHolds = executionIdentityShapeHolds(await db.unlocked((p) => awaited(p.observeShape())));
    if (!state.endStateHolds) return notRun(END_STATE_MISSING);
    return db.locked(function* (p) {
      if (yield* awaited(p.keyPresent(ACTIVATION_KEYS.executionSince))) return 'skipped'; // AC-24 point 5
      yield* awaited(p.writeKeyOnce(ACTIVATION_KEYS.executionSince, keyInstant(ctx))); // sampled under the lock
      return 'applied';
    });
  },
});

const backfill = (db: MigrationDatabase, ctx: StoreContext, options: MigrationOptions): PlannedStep => ({
  name: MIGRATION_STEP.backfillSubagentContexts,
  shapeIsCurrent: () => true, // gated on the end state, which record_execution_since's entry checks
  writesKeys: [ACTIVATION_KEYS.captureSince, ACTIVATION_KEYS.backfillThrough],
  // Its own transactions, one per chunk, each under the lock (./backfill-step.ts).
  run: () => (options.backfill === 'defer' ? Promise.resolve(notRun(BACKFILL_DEFERRED)) : backfillAndWriteKeys(db, () => keyInstant(ctx), options)),
});

/** Every step of a pass, in order: the one list both the fast path and the real pass walk. */
function planSteps(db: MigrationDatabase, ctx: StoreContext, options: MigrationOptions): PlannedStep[] {
  return [
    ...db.steps.beforeEndState.map((s) => schemaStep(db, s)),
    recordExecutionSince(db, ctx),
    ...db.steps.onceEndStateHolds.map((s) => onceEndStateHolds(schemaStep(db, s))),
    onceEndStateHolds(backfill(db, ctx, options)),
  ];
}

/**
 * The replay fast path: a boot on an installation that is already current (every step would
 * skip: complete shape, all three keys present) costs a few lock-free reads instead of one
 * locked transaction per step. Everything it checks is committed and write-once or monotonic,
 * so no concurrent migrator can make the answer stale in the direction that matters; any
 * doubt (including an error) falls through to the full, locked pass.
 */
async function alreadyCurrent(db: MigrationDatabase, plan: readonly PlannedStep[]): Promise<boolean> {
  try {
    return await db.unlocked(function* (p) {
      const shape = yield* awaited(p.observeShape());
      if (!plan.every((step) => step.shapeIsCurrent(shape))) return false;
      for (const key of plan.flatMap((step) => step.writesKeys)) if (!(yield* awaited(p.keyPresent(key)))) return false;
      return true;
    });
  } catch {
    return false;
  }
}

const skippedAs =
  (reason: string) =>
  (step: PlannedStep): MigrationStep => ({ name: step.name, status: 'skipped', ms: 0, detail: reason });

export async function runMigrationPass(db: MigrationDatabase, ctx: StoreContext, options: MigrationOptions = {}): Promise<MigrationReport> {
  const plan = planSteps(db, ctx, options);

  const tooOld = await databaseTooOld(db);
  if (tooOld) {
    const check = await runStep(ctx, MIGRATION_STEP.checkDatabaseVersion, () => Promise.reject(tooOld));
    return { ok: false, steps: [check, ...plan.map(skippedAs(VERSION_TOO_OLD))] };
  }

  const noHostTables = await hostTablesMissing(db);
  if (noHostTables) {
    const check = await runStep(ctx, MIGRATION_STEP.checkHostTables, () => Promise.reject(noHostTables));
    return { ok: false, steps: [check, ...plan.map(skippedAs(HOST_TABLES_MISSING))] };
  }

  if (await alreadyCurrent(db, plan)) return { ok: true, steps: plan.map(skippedAs(ALREADY_CURRENT)) };

  const state: PassState = { endStateHolds: false };
  const steps: MigrationStep[] = [];
  for (const step of plan) steps.push(await runStep(ctx, step.name, () => step.run(state)));
  return { ok: steps.every((s) => s.status !== 'failed'), steps };
}
