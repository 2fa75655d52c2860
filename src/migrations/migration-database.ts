// What the dialect-neutral migration pass (./migration-pass.ts) needs from a database: a few
// primitives, a way to run a body of them in one transaction under the migration lock, and
// the dialect's schema steps declared as data. Everything about ORDER — which step runs when,
// what gates it, the AC-24 backfill sequence — is neutral code; a dialect says only how.
import type { BackfillChunkOptions } from '../types.js';
import type { MigrationStepName } from './step-names.js';
import type { Flow, MaybePromise } from './flow.js';
import type { JsonHelper } from './json-helper.js';
import type { TableShape } from './table-shape.js';

export type AppliedOrSkipped = 'applied' | 'skipped';

/** One chunk of the backfill: the sessions after `after`, in key order, as nextBackfillSessions returned them. */
export interface BackfillChunk {
  readonly after: string;
  readonly sessions: readonly string[];
}

/** How the backfill paces its chunks on one database (src/migrations/backfill-step.ts). */
export interface BackfillPacing {
  /** Each chunk's transaction aims at this long. */
  readonly targetMs: number;
  /** Never more sessions in a chunk. */
  readonly maxSessions: number;
  /** Idle time between chunks, with the lock free. */
  readonly pauseMs: number;
  /** The idle time after a transaction by how long it took, the first step that applies; absent: `pauseMs` (./backfill-pacing.ts, pauseAfter). */
  readonly pauseSchedule?: readonly PauseStep[];
  /** Never more rowids in one range of a staged backfill's phase 1. */
  readonly maxStageRowids: number;
  /**
   * After a transaction whose work was computed ahead of it (SQLite in WAL mode, ./backfill-stage.ts,
   * ./backfill-step.ts), the next computation, outside the lock, counts toward the pause: the
   * idle time is the pause less the time the last computation took. Absent: the full pause.
   */
  readonly pauseOverlapsAhead?: boolean;
  /**
   * Work computed ahead of a transaction, outside the lock, is sized to take at most this many
   * times `targetMs`, and the transaction that only keeps it to hold the lock about `targetMs`
   * (SQLite in WAL mode, where the computation lets a host writer in; ./backfill-pacing.ts,
   * nextWorkSizes). Absent: the whole, computation included, is sized to `targetMs`.
   */
  readonly aheadTargets?: number;
  /** Never a wider window of created_at (µs; PostgreSQL's window walk, ./backfill-windows.ts; absent where there is none). */
  readonly maxWindowUs?: number;
  /** 'sessions': the host asked for the session walk where the window walk could run (PostgreSQL). */
  readonly walk?: 'windows' | 'sessions';
  /** A window statement's own time limit (ms), never above the role's; none: no limit of the package's own (./backfill-windows.ts). */
  readonly windowLimitMs?: number;
}

/** After a transaction shorter than `belowMs`, idle `pauseMs` (BackfillPacing.pauseSchedule). */
export interface PauseStep {
  readonly belowMs: number;
  readonly pauseMs: number;
}

/** One window of created_at, as next_backfill_window.sql returns it (./backfill-windows.ts). */
export interface BackfillWindow {
  /** The window is [lo, top]: lo and top as the column's own text. */
  readonly lo: string;
  /** The next window's top (lo − 1 µs), or null: no message is below this window, the last. */
  readonly below: string | null;
  /** Microseconds from lo to the window's newest message, when both are finite (the next window's size). */
  readonly widthUs: number | null;
}

/** What PostgreSQL's window walk runs (./backfill-windows.ts; queries/postgres). */
export interface WindowPrimitives {
  /** Whether the host's messages have the created_at index the walk needs (probe_created_at_index.sql). */
  available(): MaybePromise<boolean>;
  /**
   * The window at or below `top`, `widthUs` wide from its newest message and, when `messages` > 0,
   * holding no more of the newest messages than that; undefined: none is left (next_backfill_window.sql).
   */
  nextWindow(top: string, widthUs: number, messages: number): MaybePromise<BackfillWindow | undefined>;
  /** AC-21…AC-23b for the messages created in [lo, top] (backfill_window_contexts.sql), cancelled past `limitMs` when given: the rows inserted. */
  insertWindowRows(lo: string, top: string, limitMs: number | undefined): MaybePromise<number>;
  /** Progress only: the messages created in [lo, top] (count_backfill_window_messages.sql). */
  countWindowMessages(lo: string, top: string): MaybePromise<number>;
}

/** One DDL script from generated/<dialect>/schema.ts, applied whole. */
export interface SchemaScript {
  readonly name: string;
  readonly sql: string;
}

/** The generated script of that name (generated/<dialect>/schema.ts): a missing one is a build error, thrown at import. */
export function schemaScript(list: readonly SchemaScript[], name: string, dialect: string): SchemaScript {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`schema script ${name} is missing from generated/${dialect}/schema.ts`);
  return found;
}

/** Something a host added to the package's table: a column, or an index or trigger with its DDL. */
export interface HostObject {
  readonly kind: string;
  readonly name: string;
  readonly definition: string | null;
}

/** A database version in the engine's own integer encoding, and as it names itself. */
export interface DatabaseVersion {
  readonly number: number;
  readonly text: string;
}

/**
 * The statements a migration body can run, each one generated statement or schema script.
 * SQLite's return plain values and PostgreSQL's promises (see ./flow.ts); errors are the
 * driver's, thrown or rejected as they come.
 */
export interface MigrationPrimitives {
  /** The live shape (queries/<dialect>/observe_subagent_table_shape.sql). */
  observeShape(): MaybePromise<TableShape>;
  /** The shape's JSON helper alone (the backfill re-judges it in every transaction; the whole shape costs twice as much). */
  observeJsonHelper(): MaybePromise<JsonHelper>;
  /** Whether a kandev_meta key is present (kandev_meta itself must exist). */
  keyPresent(key: string): MaybePromise<boolean>;
  /** INSERT … ON CONFLICT DO NOTHING: a key already present is never rewritten (AC-24 point 5). */
  writeKeyOnce(key: string, value: string): MaybePromise<void>;
  /**
   * AC-24 point 1: the newest qualifying created_at as a key value, or '' (AC-24f), in one read
   * (SQLite, outside any transaction). Absent where the dialect reads it in windows instead.
   */
  readBackfillThrough?(): MaybePromise<string>;
  /**
   * PostgreSQL: the mark among the messages created before `before` down to the `limit`-th newest
   * (ties at that edge included), or '' and the edge to read below next; edge null: none left
   * (queries/postgres/read_backfill_through.sql, ../migrations/backfill-mark.ts).
   */
  readBackfillThroughWindow?(before: string, limit: number): MaybePromise<{ through: string; edge: string | null }>;
  /** A kandev_meta key's value verbatim ('' included), or undefined when absent. */
  readKey(key: string): MaybePromise<string | undefined>;
  /** Writes a key whatever it held: the backfill's progress keys only, never an activation key. */
  upsertKey(key: string, value: string): MaybePromise<void>;
  /** Deletes a key: the backfill's progress keys only, never an activation key. */
  deleteKey(key: string): MaybePromise<void>;
  /**
   * Up to `limit` session keys after `after`, in key order (queries/<dialect>/next_backfill_sessions.sql).
   */
  nextBackfillSessions(after: string, limit: number): MaybePromise<readonly string[]>;
  /**
   * PostgreSQL: those of `sessions` still present under their keys, each locked FOR KEY SHARE until
   * the transaction ends (queries/postgres/lock_backfill_sessions.sql). Absent where the chunk's
   * transaction already excludes every other writer (SQLite's BEGIN IMMEDIATE).
   */
  lockBackfillSessions?(sessions: readonly string[]): MaybePromise<readonly string[]>;
  /** AC-21…AC-23b for one chunk (queries/<dialect>/backfill_subagent_contexts.sql): the rows inserted. */
  insertBackfillRows(chunk: BackfillChunk): MaybePromise<number>;
  /** Progress only (issue 32 item 4): the sessions after `after` (queries/<dialect>/count_backfill_sessions_after.sql). */
  countSessionsAfter(after: string): MaybePromise<number>;
  /**
   * Progress only: the messages of a chunk's sessions (queries/postgres/count_backfill_chunk_messages.sql).
   * Absent where the backfill stages its candidates (`staging`): phase 1 counted the messages.
   */
  countChunkMessages?(chunk: BackfillChunk): MaybePromise<number>;
  /**
   * Phase 1 of a staged backfill (SQLite; ./backfill-stage.ts): the chunks then write from the
   * candidates staged here instead of reading the host's messages themselves. Absent: the
   * chunks read every message of their sessions (PostgreSQL).
   */
  readonly staging?: StagingPrimitives;
  /** PostgreSQL's window walk (./backfill-windows.ts). Absent: the sessions are walked. */
  readonly windows?: WindowPrimitives;
  applySchema(script: SchemaScript): MaybePromise<void>;
  /** Columns, indexes and triggers a host added to task_session_subagents (queries/<dialect>/read_subagent_table_host_objects.sql). */
  readHostObjects(): MaybePromise<readonly HostObject[]>;
  readVersion(): MaybePromise<DatabaseVersion>;
  /** Whether the host tables exist (queries/<dialect>/probe_store_tables.sql, resolved as every statement resolves them). */
  probeHostTables(): MaybePromise<HostTablePresence>;
}

/** What read_change_marks.sql reads: equal marks, nothing was written in between. */
export interface ChangeMarks {
  readonly dataVersion: bigint;
  readonly changes: bigint;
}

/** The host message a rowid range ends at: phase 1's anchor against renumbered rowids (./backfill-stage.ts). */
export interface RowidAnchor {
  readonly rowid: bigint;
  readonly id: string;
}

/** What a staged backfill's phase 1 runs (SQLite; queries/sqlite and schema/backfill/sqlite). */
export interface StagingPrimitives {
  /** Creates the staging table (IF NOT EXISTS). */
  createStage(): MaybePromise<void>;
  /** Whether the staging table exists. */
  stageExists(): MaybePromise<boolean>;
  /** The least rowid above `after`, if any. */
  nextRowidAfter(after: bigint): MaybePromise<bigint | undefined>;
  /** Drops it (IF EXISTS), in the transaction that writes the activation keys. */
  dropStage(): MaybePromise<void>;
  /** The rowids of the host's messages now: (start, bound], one below the least (which may be below -2^63) to the greatest ((0, 0] when none). */
  readRowidBound(): MaybePromise<{ readonly start: bigint; readonly bound: bigint }>;
  /** Creates the connection's temp range table (IF NOT EXISTS): one range's candidates, read ahead of its transaction. */
  createRange(): MaybePromise<void>;
  /** Reads the candidates with rowids in (after, upTo] into the range table, without the write lock; the rows read. */
  stageRange(after: bigint, upTo: bigint): MaybePromise<number>;
  /** The candidates the range table holds (count_backfill_range.sql). */
  countRange(): MaybePromise<number>;
  /** Whether the connection is inside a transaction (the host's, on a shared connection): then nothing is computed ahead. */
  inTransaction(): boolean;
  /** Keeps the range table's candidates in the staging table (under the lock); the rows staged. */
  keepRange(): MaybePromise<number>;
  /** Empties the range table. */
  clearRange(): MaybePromise<void>;
  /** Drops the range table (IF EXISTS), when phase 1 ends. */
  dropRange(): MaybePromise<void>;
  /**
   * Computes a phase-2 chunk's rows (backfill_subagent_contexts.sql) into the connection's temp
   * rows table, made when absent and emptied first: the rows computed. Takes no write lock.
   */
  computeRows(chunk: BackfillChunk): MaybePromise<number>;
  /** Inserts the rows computed (under the lock), then empties the table: the rows inserted. */
  keepRows(): MaybePromise<number>;
  /** Another connection's commits (data_version) and this connection's writes (total_changes) as of now (read_change_marks.sql). */
  changeMarks(): MaybePromise<ChangeMarks>;
  /** The rows computed, and those whose winning message is no longer in its session (check_backfill_rows.sql). */
  checkRows(): MaybePromise<{ readonly rows: number; readonly gone: number }>;
  /** Drops the rows table (IF EXISTS), when the walk ends. */
  dropRows(): MaybePromise<void>;
  /** The message with the greatest rowid at most `upTo`, if any. */
  anchorAtOrBelow(upTo: bigint): MaybePromise<RowidAnchor | undefined>;
  /** A message's rowid by its id, or undefined when it is gone. */
  rowidOf(id: string): MaybePromise<bigint | undefined>;
  /** PRAGMA schema_version: changed by every schema change, and by VACUUM. */
  schemaVersion(): MaybePromise<bigint>;
}

/** The host's tables the package reads (and never creates unless asked: store.createHostTables()). */
export const HOST_TABLES = ['task_sessions', 'task_session_messages'] as const;
export type HostTablePresence = Record<(typeof HOST_TABLES)[number], boolean>;

/**
 * One schema step as data. The pass runs it in its own transaction under the migration lock:
 * re-observe the shape, skip unless `needed`, fail on a `refusal`, apply `scripts` in order,
 * and with `verify` re-observe before COMMIT. The replay fast path asks the same `needed` of
 * a lock-free observation, so a step cannot be forgotten there.
 */
export interface SchemaStep {
  readonly name: MigrationStepName;
  /** Whether the observed shape needs this step (false: reported `skipped`). */
  needed(shape: TableShape): boolean;
  /** A reason to refuse a shape the scripts would damage: the step fails, nothing is applied. */
  refusal?(shape: TableShape): string | undefined;
  /** Fixed, or chosen from the shape observed under the lock (./column-step.ts). */
  readonly scripts: readonly SchemaScript[] | ((shape: TableShape) => readonly SchemaScript[]);
  /**
   * The scripts drop and re-create the table (SQLite's rebuild): what a host added to it is
   * read first, under the lock; its indexes and triggers are re-created from their own DDL
   * after the scripts, and a host column — which the fixed copy cannot carry — refuses the
   * step, so nothing the host added is ever lost silently (./host-objects.ts).
   */
  readonly carriesHostObjects?: boolean;
  /** Re-observe after the scripts and roll back unless the step is no longer needed (AC-33a). */
  readonly verify?: boolean;
  /**
   * Wraps the step's whole transaction, for connection settings that cannot change inside one
   * (SQLite's table rebuild). Such a step is first checked lock-free, so a database that does
   * not need it never has the connection's settings touched.
   */
  around?<T>(transaction: () => Promise<T>): Promise<T>;
}

/**
 * A dialect's schema steps, in the order they run. The pass places record_execution_since
 * between the two lists and the backfill after them (AC-33c), so a dialect cannot put a step
 * that needs the end state before the observation that establishes it.
 */
export interface DialectSteps {
  /** Run whatever the table's shape: creation, helpers, the AC-33 upgrade. */
  readonly beforeEndState: readonly SchemaStep[];
  /** Run only when record_execution_since observed AC-33's end state (AC-33a, AC-33c). */
  readonly onceEndStateHolds: readonly SchemaStep[];
}

export interface MigrationDatabase {
  /** 'SQLite' or 'PostgreSQL', as the version message names the engine. */
  readonly engine: string;
  /** The oldest version this package's statements run on, and why (the message says it). */
  readonly minimumVersion: DatabaseVersion & { readonly reason: string };
  readonly steps: DialectSteps;
  /**
   * Runs `body` as ONE transaction holding the migration lock (SQLite: BEGIN IMMEDIATE, the
   * database's write lock; PostgreSQL: an advisory transaction lock with a bounded wait):
   * COMMIT when it returns, ROLLBACK and reject when it throws.
   */
  locked<T>(body: (db: MigrationPrimitives) => Flow<T>): Promise<T>;
  /** The backfill's pacing on this database, with the host's overrides applied. */
  backfillPacing(overrides: BackfillChunkOptions | undefined): Promise<BackfillPacing>;
  /** Runs `body` on the connection without a transaction or the lock (lock-free reads). */
  unlocked<T>(body: (db: MigrationPrimitives) => Flow<T>): Promise<T>;
}
