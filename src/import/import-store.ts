// What a transcript importer writes, dialect-neutral: the rows a host keeps (a task_sessions row
// per agent session, the message row of each subagent launch, the subagent row through the
// store's own upsert, as the proxy writes them: src/proxy/proxy-database.ts), the usage ledger,
// and the importer's progress — one transaction per unit, so a unit's rows and the progress
// that accounts for them commit together or not at all (a second import changes nothing).
import type { Logger, SubagentFrame } from '../types.js';
import { subagentMessageId, subagentMessageMetadata, type SubagentJob } from '../proxy/proxy-database.js';
import type { LastResponse, UsageDelta } from './usage-tally.js';

/** One transcript's progress (schema: subagent_context_import_progress). */
export interface TranscriptProgress {
  transcript: string;
  sessionId: string;
  byteOffset: number;
  lines: number;
  malformedLines: number;
  turnId: string | null;
  last: LastResponse | null;
}

/** A subagent launch or its later news, with the instant the transcript gives it. */
export interface LaunchJob extends SubagentJob {
  at: bigint;
  /**
   * No message row: news from a subagent's sidecar, not from the line that launched it. The
   * launching transcript writes the call's message row; a sidecar must not replace its
   * metadata with fewer fields, nor invent a launch no transcript showed.
   */
  sidecar?: boolean;
  /**
   * A nested launch: the line in a subagent's transcript that launched the call. A row a line
   * read earlier created (Claude Code queues a nested background subagent's end notice in the
   * main transcript, read before the transcript holding its launch) takes this line's instant as
   * its first observation and its turn: the row's `observed_at` and its message row's
   * `created_at` move back to it, never forward. A main transcript's launch is always its call's
   * first line read, so it is not marked (two statements a launch saved).
   */
  launch?: boolean;
}

/** One transaction's worth: what a run read from one transcript since its progress. */
export interface ImportUnit {
  source: string;
  sessionId: string;
  taskId: string;
  executionId: string;
  /** The session row's created_at when the unit creates it. */
  sessionAt: bigint;
  jobs: LaunchJob[];
  /** The subagent whose own transcript this is, with its usage; null for a main transcript. */
  subagentUsage: { toolCallId: string; deltas: Map<string, UsageDelta> } | null;
  /** The parent's own usage (a main transcript). */
  parentUsage: Map<string, UsageDelta> | null;
  progress: TranscriptProgress;
  /**
   * The byte offset the unit's lines start from: the transcript's progress as this run read it,
   * or as its last commit left it (0: never imported). The commit refuses the unit when another
   * import moved the progress since (ProgressMovedError).
   */
  fromOffset: number;
  /** updated_at of the ledger and progress rows: the import's own clock. */
  at: bigint;
}

export interface UnitOutcome {
  /** Subagent rows written (launches and their news). */
  frames: number;
  /** Frames the store did not persist (WARN-logged by the store): their message rows stay, a shortfall health reports. */
  failedFrames: number;
}

/**
 * The commit found the transcript's progress moved since this run read it: another import into
 * the same store wrote those lines first. Nothing of the unit was written (rolled back); the
 * lines are the other run's to count, and the next import reads on from where it stopped.
 */
export class ProgressMovedError extends Error {
  constructor(readonly transcript: string) {
    super(`another import moved the progress of ${transcript} since this run read it`);
    this.name = 'ProgressMovedError';
  }
}

export interface ImportStore {
  /** Host tables (CREATE … IF NOT EXISTS) and the store's migrations; false when a step failed. */
  prepare(): Promise<boolean>;
  /** The progress rows of these transcripts of one source, by key; a transcript never imported has none. Callers pass a bounded batch of keys. */
  readProgress(source: string, transcripts: string[]): Promise<Map<string, TranscriptProgress>>;
  /** The tool call of the subagent whose result named agentId (a transcript without its sidecar). */
  findToolCall(sessionId: string, executionId: string, agentId: string): Promise<string | undefined>;
  /** Whether the subagent row of a tool call exists (its launch was imported). */
  hasSubagentRow(sessionId: string, executionId: string, toolCallId: string): Promise<boolean>;
  /** The tool calls of the session's subagent rows not settled yet (launched by an earlier import). */
  unsettledCalls(sessionId: string, executionId: string): Promise<string[]>;
  /**
   * One transaction, the progress claimed right after the session row its key needs; rejects (rolled back, nothing written) with
   * ProgressMovedError when another import moved the progress from unit.fromOffset, and with the
   * driver's error when a host row or ledger write fails.
   */
  commit(unit: ImportUnit): Promise<UnitOutcome>;
  close(): Promise<void>;
}

export interface ImportStoreOptions {
  logger: Logger;
  /** The import's own wall clock (ns). */
  clock: () => bigint;
}

/** The message row's metadata, as the proxy writes it, with the provenance first: `imported_from`. */
export function importedMessageMetadata(source: string, job: SubagentJob): string {
  return `{"imported_from":${JSON.stringify(source)},${subagentMessageMetadata(job).slice(1)}`;
}

export function messageRow(unit: ImportUnit, job: LaunchJob): { id: string; sessionId: string; taskId: string; turnId: string | null; metadata: string } {
  return {
    id: subagentMessageId(unit.sessionId, job.toolCallId),
    sessionId: unit.sessionId,
    taskId: unit.taskId,
    turnId: job.turnId,
    metadata: importedMessageMetadata(unit.source, job),
  };
}

export function frameOf(unit: ImportUnit, job: LaunchJob, taskId: string): SubagentFrame {
  return {
    sessionId: unit.sessionId,
    taskId,
    turnId: job.turnId,
    executionId: unit.executionId,
    toolCallId: job.toolCallId,
    parentToolCallId: job.parentToolCallId,
    toolStatus: job.toolStatus,
    payload: job.payload,
  };
}

/**
 * The parameters of a nested launch's two backdate statements (LaunchJob.launch), the message
 * one first: it moves only while its instant is still the row's. `at` is the dialect's text.
 */
export function backdateParams(unit: ImportUnit, job: LaunchJob, taskId: string, at: string) {
  const row = { sessionId: unit.sessionId, executionId: unit.executionId, toolCallId: job.toolCallId, turnId: job.turnId, at };
  return { message: { ...row, id: messageRow({ ...unit, taskId }, job).id }, row };
}

/** The ledger's columns hold int64: the largest figure a ledger row can keep. */
const LEDGER_MAX = 2n ** 63n - 1n;

/**
 * A delta as the ledger statements take it: at most LEDGER_MAX. The statements add saturating at
 * the same bound (queries/<dialect>/import/import_add_*_usage.sql), so a transcript whose figures
 * sum past int64 (hostile or garbled) keeps the bound, as every run after it, instead of failing
 * the transcript on every run (PostgreSQL) or turning the column REAL (SQLite).
 */
const bounded = (n: bigint | null): bigint | null => (n === null ? null : n > LEDGER_MAX ? LEDGER_MAX : n);

/**
 * The ledger rows of a unit, in the named-parameter form both dialects' statements take; `metric`
 * renders an int64 for the driver (a bigint for better-sqlite3, its text for node-postgres).
 */
export function usageRows<M>(unit: ImportUnit, metric: (n: bigint) => M): { subagent: UsageRow<M>[]; parent: UsageRow<M>[] } {
  const figure = (n: bigint | null): M | null => {
    const b = bounded(n);
    return b === null ? null : metric(b);
  };
  const rows = (deltas: Map<string, UsageDelta> | null | undefined): UsageRow<M>[] =>
    [...(deltas ?? [])].map(([model, d]) => ({
      model,
      requests: metric(BigInt(d.requests)),
      inputTokens: figure(d.input_tokens),
      outputTokens: figure(d.output_tokens),
      cacheReadInputTokens: figure(d.cache_read_input_tokens),
      cacheCreationInputTokens: figure(d.cache_creation_input_tokens),
    }));
  return { subagent: rows(unit.subagentUsage?.deltas), parent: rows(unit.parentUsage) };
}

export interface UsageRow<M> {
  model: string;
  requests: M;
  inputTokens: M | null;
  outputTokens: M | null;
  cacheReadInputTokens: M | null;
  cacheCreationInputTokens: M | null;
}

/** The progress row's parameters. */
export function progressParams(unit: ImportUnit) {
  const p = unit.progress;
  return {
    source: unit.source,
    transcript: p.transcript,
    sessionId: unit.sessionId,
    fromOffset: unit.fromOffset,
    byteOffset: p.byteOffset,
    lines: p.lines,
    malformedLines: p.malformedLines,
    turnId: p.turnId,
    lastMessageId: p.last?.messageId ?? null,
    lastModel: p.last?.model ?? null,
    lastInputTokens: p.last?.input_tokens ?? null,
    lastOutputTokens: p.last?.output_tokens ?? null,
    lastCacheReadTokens: p.last?.cache_read_input_tokens ?? null,
    lastCacheCreationTokens: p.last?.cache_creation_input_tokens ?? null,
  };
}

type RawProgress = {
  transcript: string;
  sessionId: string;
  byteOffset: unknown;
  lines: unknown;
  malformedLines: unknown;
  turnId?: string | null;
  lastMessageId?: string | null;
  lastModel?: string | null;
  lastInputTokens?: unknown;
  lastOutputTokens?: unknown;
  lastCacheReadTokens?: unknown;
  lastCacheCreationTokens?: unknown;
};

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A progress row as either driver returns it (bigint on SQLite, text on PostgreSQL). */
export function toProgress(row: RawProgress): TranscriptProgress {
  return {
    transcript: row.transcript,
    sessionId: row.sessionId,
    byteOffset: num(row.byteOffset),
    lines: num(row.lines),
    malformedLines: num(row.malformedLines),
    turnId: row.turnId ?? null,
    last:
      row.lastMessageId && row.lastModel
        ? {
            messageId: row.lastMessageId,
            model: row.lastModel,
            input_tokens: numOrNull(row.lastInputTokens),
            output_tokens: numOrNull(row.lastOutputTokens),
            cache_read_input_tokens: numOrNull(row.lastCacheReadTokens),
            cache_creation_input_tokens: numOrNull(row.lastCacheCreationTokens),
          }
        : null,
  };
}

/** What every agent's importer is run with (src/import/importers.ts). */
export interface ImportRunOptions {
  /** The folder of the agent's transcripts. */
  from: string;
  store: ImportStore;
  task?: string;
  logger: Logger;
  clock: () => bigint;
  /** Bytes read so far of the bytes there were to read (for a progress bar). */
  onProgress?(done: number, total: number): void;
}
