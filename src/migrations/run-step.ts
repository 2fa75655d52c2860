// Runs one named migration step and reports it: timing, its status, and on failure a WARN
// carrying the step's name (AC-20). Never throws, so one failing step cannot abort the pass
// (AC-33a: boot never aborts); the store's logger is guarded (src/logger.ts), so logging cannot
// throw here either.
import { describeError } from '../logger.js';
import type { Logger, MigrationStep } from '../types.js';
import type { AppliedOrSkipped } from './migration-database.js';

/** A step that did not run because what it needs does not hold; `reason` is reported. */
export interface NotRun {
  readonly status: 'skipped';
  readonly reason: string;
}

export function notRun(reason: string): NotRun {
  return { status: 'skipped', reason };
}

export interface StepContext {
  readonly dialect: string;
  readonly logger: Logger;
}

export async function runStep(ctx: StepContext, name: string, work: () => Promise<AppliedOrSkipped | NotRun>): Promise<MigrationStep> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
  try {
    const outcome = await work();
    const ms = elapsed();
    if (typeof outcome === 'string') {
      if (outcome === 'applied') ctx.logger.info?.({ dialect: ctx.dialect, step: name, ms }, `subagent-context migration step ${name} applied`);
      return { name, status: outcome, ms };
    }
    return { name, status: 'skipped', ms, detail: outcome.reason };
  } catch (err) {
    const ms = elapsed();
    const described = describeError(err);
    ctx.logger.warn(
      { dialect: ctx.dialect, step: name, ms, ...described },
      `subagent-context migration step ${name} failed; it is rolled back and retried on the next run`,
    );
    return { name, status: 'failed', ms, error: described.code ? `${described.error} (${described.code})` : described.error };
  }
}
