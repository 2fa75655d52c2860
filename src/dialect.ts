// The dialect module: the list of dialects, the one place that may name a dialect to compare
// against it (byDialect, matchDialect and dialectNamed below; eslint.config.js), and what the
// dialect-neutral store (src/store.ts) needs from a database, split by concern so each concern
// has one file per dialect: src/<dialect>/writer.ts (the live write path),
// reader.ts (the lists a host calls), migrations.ts, health.ts and report.ts. Each
// implementation calls only generated functions (generated/<dialect>/).
import type { UpsertInput } from './frame-normalization.js';
import type { UsageWrite } from './usage-normalization.js';
import type { ReportOptions, SubagentContextReport } from './report/types.js';
import type { HealthReport, HostIndexReport, Logger, MigrationOptions, MigrationReport, SubagentContextRow } from './types.js';

/**
 * The dialects. Derived from this list: the type below, the dialect records (ByDialect,
 * byDialect, matchDialect; src/database-target.ts), the test matrix (test/helpers/test-db.ts
 * describeBothDialects), codegen (scripts/codegen.ts runs one generator per dialect, and
 * scripts/lib/generators/index.ts types that record by this list) and the dialects the benchmark
 * and soak scripts run by default. A new dialect added here makes the compiler name every
 * record that lacks its entry, its generator included.
 */
export const DIALECTS = ['sqlite', 'postgres'] as const;
export type DialectName = (typeof DIALECTS)[number];

// Dialects as records (the Kysely habit, STYLE.md): code that differs by dialect writes a record
// with one entry per dialect, never `dialect === 'sqlite' ? a : b`, which would send a new
// dialect silently down the other branch. A record that lacks the new dialect's entry is a type
// error. eslint.config.js forbids comparing to a dialect's name anywhere in src/ and scripts/
// but here (and codegen's own folder, see there).

/** One value per dialect. */
export type ByDialect<T> = { readonly [D in DialectName]: T };

/** The entry of `values` for `dialect`; `values` must name every dialect (a third is a compile error until it has its entry). */
export function byDialect<R extends ByDialect<unknown>>(dialect: DialectName, values: R): R[DialectName] {
  return values[dialect];
}

/** The case for `value`'s dialect, called with `value` narrowed to that dialect's member of its union; `cases` names every dialect. */
export function matchDialect<T extends { readonly dialect: DialectName }, R>(
  value: T,
  cases: { readonly [D in DialectName]: (value: Extract<T, { readonly dialect: D }>) => R },
): R {
  return (cases[value.dialect] as (value: T) => R)(value);
}

/** The dialect `name` names (a command-line argument), or undefined when it names none. */
export function dialectNamed(name: string | undefined): DialectName | undefined {
  return DIALECTS.find((d) => d === name);
}

/**
 * The live write path: nothing here reads rows back. `client` is RecordOptions.client as the
 * host passed it (null/undefined: none); each dialect checks it and, when it joins a host's
 * transaction, isolates each frame in a savepoint and never ends that transaction (DESIGN §8).
 */
export interface WriterAdapter {
  /** The live upsert for one frame, autocommitted (or inside the host's transaction). Rejects with the driver's error. */
  upsert(input: UpsertInput, observedAtNs: bigint, client?: unknown): Promise<void>;
  /**
   * Many frames in ONE transaction (or savepoint of the host's), in order, each isolated: entry
   * i is null when frame i's upsert committed, else its error. If the transaction itself fails
   * every entry is an error.
   */
  upsertBatch(batch: readonly { input: UpsertInput; observedAtNs: bigint }[], client?: unknown): Promise<(Error | null)[]>;
  /**
   * Usage-ledger rows (queries/<dialect>/set_subagent_usage.sql), written after their frames'
   * rows and each isolated: autocommitted, or in a savepoint of its own inside a transaction
   * (the host's, the proxy's), so a ledger statement that fails is undone alone and never
   * takes a row with it. Entry i is null when row i's statement ran, else its error.
   */
  setUsage(rows: readonly UsageWrite[], client?: unknown): Promise<(Error | null)[]>;
}

/**
 * The lists a host reads rows with. The other reads take the StoreContext and are
 * DialectStore's own: checkHealth() and report() (src/health/, src/report/ are their readers).
 */
export interface ReaderAdapter {
  /** AC-13 order. */
  listBySession(sessionId: string): Promise<SubagentContextRow[]>;
  listByTurn(sessionId: string, turnId: string): Promise<SubagentContextRow[]>;
}

/** Context handed to the migration runner and the health check. */
export interface StoreContext {
  readonly dialect: DialectName;
  readonly clock: () => bigint;
  /** Guarded (src/logger.ts storeLogger): calling it never throws. */
  readonly logger: Logger;
}

export interface DialectStore {
  readonly dialect: DialectName;
  readonly writer: WriterAdapter;
  readonly reader: ReaderAdapter;
  runMigrations(ctx: StoreContext, options?: MigrationOptions): Promise<MigrationReport>;
  checkHealth(ctx: StoreContext): Promise<HealthReport>;
  ensureHostIndex(): Promise<HostIndexReport>;
  createHostTables(): Promise<void>;
  report(ctx: StoreContext, options: ReportOptions | undefined): Promise<SubagentContextReport>;
}
