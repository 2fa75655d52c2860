// The public types of the package (DESIGN §2). Names here are a contract: keep them.
import type { PayloadTextFields, TextColumnRow } from '../generated/columns.js';
import type { ActivationKeyValues, ActivationState } from './activation-keys.js';
import type { ReportOptions, SubagentContextReport } from './report/types.js';

export type { ActivationState } from './activation-keys.js';

/** Structured logger; only `warn` is required. Called as (fields, message). */
export interface Logger {
  warn(fields: object, msg: string): void;
  info?(fields: object, msg: string): void;
  error?(fields: object, msg: string): void;
  debug?(fields: object, msg: string): void;
}

export interface StoreOptions {
  logger?: Logger;
  /** Wall clock, nanoseconds since the Unix epoch. Every instant the store records comes from it. */
  clock?: () => bigint;
  /**
   * PostgreSQL only (ignored on SQLite). true (the default): the live upserts and the health
   * check's statements run as named prepared statements, parsed once per connection; at the
   * first sign that server connections are shared (a transaction-mode pooler: 42P05/26000)
   * that frame or statement is retried unnamed and the store stays unnamed, losing nothing. false: unnamed from the start, for a
   * pooler that would otherwise pin a client's session to one server connection.
   */
  namedStatements?: boolean;
}

/**
 * Where recordFrame/recordFrames write (DESIGN §8 "Host transactions").
 * - PostgreSQL: `client` is a pg client (pg.PoolClient or pg.Client) on which the host has
 *   BEGUN its transaction. The write joins it inside a SAVEPOINT: a frame the database rejects
 *   is `failed` and undone alone, the host's transaction stays usable, and the store never
 *   issues BEGIN/COMMIT/ROLLBACK there. A client outside a transaction, or a value that is not
 *   a pg client, fails the frame (WARN, counted). Absent or null: the store's own pool.
 * - SQLite: the store always writes on its own connection, and joins the host's transaction
 *   whenever one is open there (`db.inTransaction`), with a savepoint. `client` may be omitted
 *   or be that same Database; any other value fails the frame.
 * `'persisted'` then means "written into the host's transaction": the host's COMMIT makes it
 * durable and its ROLLBACK removes it, message and row alike.
 */
export interface RecordOptions<TClient = unknown> {
  client?: TClient | null;
}

/** metadata.normalized.subagent_task, with the JSON's snake_case field names. */
export interface SubagentTaskPayload extends PayloadTextFields {
  // The text fields a column stores (description, subagent_type, status, agent_id, model,
  // child_session_id, output_file) come from the column tags (generated/columns.ts).
  prompt?: string;
  duration_ms?: number | bigint;
  total_tokens?: number | bigint;
  /** null/absent = not reported; 0 = a reported zero (AC-8). */
  tool_use_count?: number | bigint | null;
  is_async?: boolean;
  result_text?: string;
}

/** One observed tool-call frame of a subagent_task. */
export interface SubagentFrame {
  sessionId?: string | null;
  taskId?: string | null;
  turnId?: string | null;
  executionId?: string | null;
  toolCallId?: string | null;
  parentToolCallId?: string | null;
  /** ACP tool-call status: decides terminality (AC-11). */
  toolStatus?: string | null;
  payload: SubagentTaskPayload;
  /**
   * The subagent's usage summed over its whole run, where its agent reports one (Qwen Code's
   * executionSummary): written to the usage ledger (task_session_subagent_usage, source
   * 'live') right after the row, keyed like it plus the model. Absent: no ledger write.
   */
  usage?: SubagentUsage | null;
}

/**
 * One subagent's usage as its agent reported it summed over the run so far — never a delta:
 * the ledger row is SET to these figures, so the same report written twice changes nothing
 * (docs/acp-intake.md, "Usage ledger"). Token figures in the ledger's sense (Anthropic's):
 * `input_tokens` excludes the cache reads counted in `cache_read_input_tokens`. An absent or
 * null figure is not reported: the ledger keeps NULL (never 0) or the figure it held.
 */
export interface SubagentUsage {
  /** 'unknown' when absent (Qwen Code names no model on the wire). */
  model?: string | null;
  /** Model requests (Qwen Code's rounds). */
  requests?: number | bigint | null;
  input_tokens?: number | bigint | null;
  output_tokens?: number | bigint | null;
  cache_read_input_tokens?: number | bigint | null;
  cache_creation_input_tokens?: number | bigint | null;
}

export type RecordOutcome = 'persisted' | 'skipped_no_identity' | 'failed';

/** AC-26. attempted = skipped_no_identity + persisted + failed, exactly. */
export interface WriterCounters {
  attempted: number;
  persisted: number;
  skipped_no_identity: number;
  /** Qualifier: frames that reached the write carrying an unusable metric (AC-9). */
  anomalous_value: number;
  failed: number;
  /** Qualifier: frames written with the 'unknown' execution sentinel (AC-31). */
  unknown_execution: number;
  /**
   * Qualifier (the package's, not the spec's): frames whose row was written (`persisted`) but
   * whose usage-ledger row (SubagentFrame.usage) failed; WARN-logged, the row kept.
   */
  ledger_failed: number;
}

/**
 * A task_session_subagents row. Timestamps are `YYYY-MM-DDTHH:MM:SS.ffffffZ`. The text columns
 * (TextColumnRow: parent_tool_call_id, subagent_type, description, agent_id, child_session_id,
 * model, agent_status, …) come from the DDL's column tags (generated/columns.ts).
 */
export interface SubagentContextRow extends TextColumnRow {
  id: string;
  task_session_id: string;
  task_id: string;
  turn_id: string | null;
  agent_execution_id: string;
  tool_call_id: string;
  tool_status: string | null;
  is_async: boolean;
  /** number, or bigint beyond 2^53. */
  total_tokens: number | bigint | null;
  tool_use_count: number | bigint | null;
  duration_ms: number | bigint | null;
  source: 'live' | 'backfill' | string;
  observed_at: string;
  settled_at: string | null;
  updated_at: string;
}

export interface MigrationStep {
  name: string;
  status: 'applied' | 'skipped' | 'failed';
  ms: number;
  /** Why the step failed; only on `failed`. */
  error?: string;
  /** Why a `skipped` step did not run, when that is worth saying (e.g. `already current: …`); never an error. */
  detail?: string;
}

export interface MigrationReport {
  ok: boolean;
  steps: MigrationStep[];
}

/** The backfill's progress, reported after each of its transactions commits (docs/migrations.md). */
export interface BackfillProgress {
  /** Transactions committed by this run: the session chunks, and on SQLite its first phase's ranges (a resumed run counts its own). */
  chunks: number;
  /** Host sessions walked by this run. */
  sessions: number;
  /** Rows this run inserted (a replayed chunk inserts none: AC-22). */
  rowsWritten: number;
  /**
   * Messages this run read: on PostgreSQL those of the windows it read (or of the sessions it
   * walked), each counted after its INSERT; on SQLite the rowids of the ranges its first phase
   * read, as many messages where the host's rowids have no gaps (counting them would read each
   * range twice).
   */
  messagesScanned: number;
  /**
   * The messages its windows had left to read when this run began (PostgreSQL), or the rowids
   * SQLite's first phase had left, about as many messages where the host's rowids have no gaps:
   * `messagesScanned` of it is the phase's done fraction. 0 on PostgreSQL's session walk.
   */
  messagesToScan: number;
  /**
   * The sessions this run had to walk when it began (those after the cursor): `sessions` of
   * it is the done fraction. Sessions the host creates meanwhile may take `sessions` past it.
   */
  sessionsToWalk: number;
  /** Since the first chunk began. */
  ms: number;
  /** Since the current phase began: the ETA's clock (SQLite's first phase is not session work). */
  phaseMs: number;
  /** The last chunk: the activation keys are written. */
  done: boolean;
  /**
   * SQLite's backfill first reads the messages in storage order ('stage': `chunks` counts its
   * ranges and `messagesScanned` grows), then writes session by session ('sessions'); a
   * PostgreSQL backfill reads windows of created_at ('windows': `chunks` counts them and, with
   * `messagesToScan`, `messagesScanned` grows) or, where it cannot, walks sessions ('sessions')
   * (docs/migrations.md, "The backfill in chunks").
   */
  phase: 'stage' | 'windows' | 'sessions';
}

/** Overrides of the backfill's chunk pacing (docs/migrations.md gives the defaults and why). */
export interface BackfillChunkOptions {
  /** Each chunk's transaction aims at this long (ms). */
  targetMs?: number;
  /** At most this many host sessions per chunk. */
  maxSessions?: number;
  /** SQLite: at most this many rowids per range of the backfill's first phase (docs/migrations.md). */
  maxStageRowids?: number;
  /**
   * PostgreSQL: how the backfill walks the host's messages. 'windows' (the default where
   * task_session_messages has an index on created_at): windows of created_at, newest first;
   * 'sessions': the host's sessions in key order, as before 0.3 (docs/migrations.md says when
   * each is chosen). SQLite always walks its sessions, after reading the messages in storage order.
   */
  walk?: 'windows' | 'sessions';
  /** PostgreSQL's window walk: never a window of created_at wider than this (ms; fractions allowed, down to 0.001). */
  maxWindowMs?: number;
  /**
   * Idle time after each of the backfill's transactions, with the lock free (ms). Default:
   * PostgreSQL none; SQLite by how long the transaction held the lock, 2 to 120 ms, less the
   * time the work computed ahead of it took (WAL) (docs/migrations.md, "SQLite and a host writer").
   */
  pauseMs?: number;
}

export interface MigrationOptions {
  /**
   * 'defer': every step but the backfill, which is reported skipped and left for a later
   * runMigrations() (for instance one the host starts in the background after boot: capture
   * works as soon as this pass returns; docs/migrations.md). Default 'run'.
   */
  backfill?: 'run' | 'defer';
  /** Called after each of the backfill's transactions commits (its chunks, and SQLite's first-phase ranges); an exception it throws is ignored. */
  onBackfillProgress?(progress: BackfillProgress): void;
  backfillChunk?: BackfillChunkOptions;
}

/** store.ensureHostIndex()'s answer. */
export interface HostIndexReport {
  /** idx_messages_subagent_candidates */
  index: string;
  /** created by this call; present already (nothing done); rebuilt over an unfinished PostgreSQL build. */
  outcome: 'created' | 'present' | 'rebuilt';
  ms: number;
}

export type HealthVerdict = 'not_activated' | 'shortfall' | 'nothing_since_activation' | 'healthy';

export interface HealthReport {
  keys: ActivationKeyValues;
  /** AC-24c's four rows. */
  state: ActivationState;
  /** null when capture_since is absent: the comparison is not run (AC-28a). */
  shortfall: number | null;
  excess: number | null;
  collisions: number | null;
  /** Scoped MAX(observed_at) (AC-29). */
  last_observed_at: string | null;
  verdict: HealthVerdict;
}

/** `TClient`: what RecordOptions.client accepts (pg.ClientBase on PostgreSQL, the Database on SQLite). */
export interface SubagentContextStore<TClient = unknown> {
  /** Never rejects: failures are WARN-logged and reported per step. */
  runMigrations(options?: MigrationOptions): Promise<MigrationReport>;
  /** Never rejects (AC-27). With `{ client }`, inside the host's transaction. */
  recordFrame(frame: SubagentFrame, options?: RecordOptions<TClient>): Promise<RecordOutcome>;
  /** Many frames in one transaction (or savepoint of the host's); each frame's outcome is independent. Never rejects. */
  recordFrames(frames: SubagentFrame[], options?: RecordOptions<TClient>): Promise<RecordOutcome[]>;
  /** A snapshot of this store instance's writer counters. */
  counters(): WriterCounters;
  checkHealth(): Promise<HealthReport>;
  /**
   * Creates the optional index on the host's messages table that lets checkHealth() read only
   * the window's subagent candidates (docs/host-index.md); idempotent, never called by
   * runMigrations(). Rejects with a HostIndexError.
   */
  ensureHostIndex(): Promise<HostIndexReport>;
  /**
   * Creates the host tables the package reads — task_sessions and task_session_messages, with
   * their two indexes (docs/host-tables.md) — where they are absent, in one transaction; where
   * both exist it does nothing (no write, no lock), and a table that exists is left as it is. For a database that is not a host's (runMigrations() refuses
   * it with `missing_host_tables`); a host that has them never calls it. Rejects with the
   * driver's error.
   */
  createHostTables(): Promise<void>;
  /** The AC-25 reader (DESIGN §9): rows with since <= observed_at < until, optionally scoped to tasks. */
  report(options?: ReportOptions): Promise<SubagentContextReport>;
  /** AC-13 order: observed_at, tool_call_id, agent_execution_id. */
  listBySession(sessionId: string): Promise<SubagentContextRow[]>;
  listByTurn(sessionId: string, turnId: string): Promise<SubagentContextRow[]>;
}
