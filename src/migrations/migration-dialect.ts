// What the dialect-neutral migration pass (./migration-pass.ts) needs from a database.
// Each operation is one step's whole database work: it runs in its own transaction holding
// the migration lock (PostgreSQL: an advisory transaction lock; SQLite: BEGIN IMMEDIATE),
// re-observes the shape or the keys under that lock, and either commits all of its work or
// none of it. Each resolves to whether it changed anything, or rejects with the driver's
// error after rolling back.

import type { TableShape } from './table-shape.js';

export type AppliedOrSkipped = 'applied' | 'skipped';

export interface NamedStep {
  readonly name: string;
  run(): Promise<AppliedOrSkipped>;
}

export interface MigrationDialect {
  /** Creates kandev_meta when absent (schema/<dialect>/001). */
  ensureKandevMeta(): Promise<AppliedOrSkipped>;
  /** Creates task_session_subagents and its indexes when the table is absent (002, 003). */
  createSubagentTable(): Promise<AppliedOrSkipped>;
  /**
   * AC-33: brings a table that does not hold the end state to it (SQLite: a transactional
   * rebuild; PostgreSQL: column + key swap in place), verifying the end state before commit.
   */
  upgradePreAmendmentTable(): Promise<AppliedOrSkipped>;
  /** AC-33b: observes the live schema; true when AC-33's clauses 1–3 hold. */
  observeExecutionIdentityShape(): Promise<boolean>;
  /**
   * Writes a kandev_meta key only if absent (AC-24 write-once). `sample` is called under the
   * lock, after the key is seen absent, so the instant is the moment of the write.
   */
  writeKeyOnce(key: string, sample: () => string): Promise<AppliedOrSkipped>;
  /** Dialect objects other statements need whatever the table's shape (PostgreSQL's JSON helper). */
  readonly helperSteps: readonly NamedStep[];
  /** Shape steps that apply only once the AC-33 end state holds, in order. */
  readonly endStateSteps: readonly NamedStep[];
  /**
   * AC-21…AC-24f in ONE transaction: skip when both backfill keys are present; else
   * backfill_through from the source predicate, then the INSERT … SELECT, then
   * `sampleCaptureSince()` (after the INSERT completed, AC-24 point 4), then both key
   * writes, each ON CONFLICT DO NOTHING (AC-24d).
   */
  backfill(sampleCaptureSince: () => string): Promise<AppliedOrSkipped>;
  /** The shape this pass would observe, read once without the migration lock. */
  observeShape(): Promise<TableShape>;
  /** Whether a kandev_meta key is present (kandev_meta itself must exist). */
  keyPresent(key: string): Promise<boolean>;
}
