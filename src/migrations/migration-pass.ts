// One runMigrations() pass, dialect-neutral: the step order AC-33c fixes, the gating that
// keeps the backfill off a stale shape, and the report. Each step is its own transaction
// (./migration-dialect.ts); a failing step is rolled back, WARN-logged with its name and
// reported, and the pass goes on with every step that does not depend on it, so whatever
// can succeed does and the rest retries on the next run (AC-20, AC-24a, AC-33a).
//
// Order (AC-33c: the shape change and the execution_since write come BEFORE the backfill):
//   ensure_kandev_meta           kandev_meta when absent
//   create_subagent_table        the table and its indexes when absent (fresh DDL)
//   [helper steps]               PostgreSQL ensure_json_helpers (the backfill and the health
//                                queries need it whatever the table's shape)
//   upgrade_pre_amendment_table  AC-33: a table short of the end state is brought to it
//   record_execution_since       AC-33b: OBSERVE the live schema; when clauses 1–3 hold,
//                                write subagent_context_execution_since if absent — however
//                                the end state came about, never gated on a rebuild firing
//   [end-state steps]            PostgreSQL widen_metric_columns; ensure_subagent_indexes —
//                                only once the end state holds, so a failed AC-33 upgrade
//                                leaves the pre-amendment table wholly untouched (AC-33a)
//   backfill_subagent_contexts   AC-21…AC-24f — only when the end state was observed to hold
import { ACTIVATION_KEYS } from '../activation-keys.js';
import type { StoreContext } from '../dialect.js';
import { formatKeyInstant } from '../instant.js';
import type { MigrationReport, MigrationStep } from '../types.js';
import type { MigrationDialect } from './migration-dialect.js';
import { notRun, runStep } from './run-step.js';
import { MIGRATION_STEP } from './step-names.js';
import { shapeIsComplete } from './table-shape.js';

const END_STATE_MISSING =
  'not run: the AC-33 end state (agent_execution_id NOT NULL, the three-column key, no two-column key) ' +
  'was not observed to hold; retried on the next run (AC-33c)';

/** AC-24 point 3: every key this build writes is RFC3339 with nine fraction digits. */
function keyInstant(ctx: StoreContext): string {
  const ns = ctx.clock();
  if (typeof ns !== 'bigint') throw new TypeError('clock() must return a bigint of nanoseconds');
  return formatKeyInstant(ns);
}

/**
 * The replay fast path: a boot on an installation that is already current (complete shape,
 * all three keys present) costs a few lock-free reads instead of eight locked transactions.
 * Everything it checks is committed and write-once or monotonic, so no concurrent migrator
 * can make the answer stale in the direction that matters; any doubt (including an error)
 * falls through to the full, locked pass.
 */
async function alreadyCurrent(db: MigrationDialect): Promise<boolean> {
  try {
    if (!shapeIsComplete(await db.observeShape())) return false;
    for (const key of Object.values(ACTIVATION_KEYS)) if (!(await db.keyPresent(key))) return false;
    return true;
  } catch {
    return false;
  }
}

const ALREADY_CURRENT = 'already current: complete shape and all three activation keys present';

export async function runMigrationPass(db: MigrationDialect, ctx: StoreContext): Promise<MigrationReport> {
  if (await alreadyCurrent(db)) {
    const names = [
      MIGRATION_STEP.ensureKandevMeta,
      MIGRATION_STEP.createSubagentTable,
      ...db.helperSteps.map((s) => s.name),
      MIGRATION_STEP.upgradePreAmendmentTable,
      MIGRATION_STEP.recordExecutionSince,
      ...db.endStateSteps.map((s) => s.name),
      MIGRATION_STEP.backfillSubagentContexts,
    ];
    return { ok: true, steps: names.map((name) => ({ name, status: 'skipped', ms: 0, error: ALREADY_CURRENT })) };
  }
  const steps: MigrationStep[] = [];
  const step = async (name: string, work: Parameters<typeof runStep>[2]) => {
    steps.push(await runStep(ctx, name, work));
  };

  await step(MIGRATION_STEP.ensureKandevMeta, () => db.ensureKandevMeta());
  await step(MIGRATION_STEP.createSubagentTable, () => db.createSubagentTable());
  for (const helper of db.helperSteps) await step(helper.name, () => helper.run());
  await step(MIGRATION_STEP.upgradePreAmendmentTable, () => db.upgradePreAmendmentTable());

  // Set from the observation itself, before the key write, so a failing key write (the
  // state AC-33b's next boot self-heals) does not keep the backfill from running.
  let endStateHolds = false;
  await step(MIGRATION_STEP.recordExecutionSince, async () => {
    endStateHolds = await db.observeExecutionIdentityShape();
    if (!endStateHolds) return notRun(END_STATE_MISSING);
    return db.writeKeyOnce(ACTIVATION_KEYS.executionSince, () => keyInstant(ctx));
  });

  for (const shapeStep of db.endStateSteps) {
    await step(shapeStep.name, () => (endStateHolds ? shapeStep.run() : Promise.resolve(notRun(END_STATE_MISSING))));
  }

  await step(MIGRATION_STEP.backfillSubagentContexts, () =>
    endStateHolds ? db.backfill(() => keyInstant(ctx)) : Promise.resolve(notRun(END_STATE_MISSING)),
  );

  return { ok: steps.every((s) => s.status !== 'failed'), steps };
}
