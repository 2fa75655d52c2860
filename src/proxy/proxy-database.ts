// The proxy's store, as the host it is: the host tables it needs (the exported host schema,
// CREATE … IF NOT EXISTS, so an existing host database is left as it is), the store's own
// migrations, and one write per recognized update — the message row a host's message writer
// would keep, then the subagent row through store.recordFrame — inside one transaction, each
// job isolated by a savepoint. A message whose subagent row failed stays: health reports it as
// the real shortfall it is.
import { createHash } from 'node:crypto';
import type { Logger, MigrationReport, RecordOutcome, SubagentContextStore, SubagentFrame } from '../types.js';
import type { WriteJob } from './acp-identity.js';

export interface JobResult {
  written: number;
  failed: number;
  /** One line per failed job or failed batch. */
  errors: string[];
}

export interface ProxyDatabase {
  readonly store: SubagentContextStore;
  /** Creates the host tables, then runs the store's migrations (which never reject). */
  prepare(): Promise<MigrationReport>;
  write(jobs: readonly WriteJob[], atNs: bigint): Promise<JobResult>;
  close(): Promise<void>;
}

export interface ProxyDatabaseOptions {
  executionId: string;
  logger: Logger;
  clock: () => bigint;
}

/** The message row's id: one per (session, tool_call_id), as the host looks the row up. */
export function subagentMessageId(sessionId: string, toolCallId: string): string {
  const h = createHash('sha256').update(sessionId).update('\u0000').update(toolCallId).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export type SubagentJob = Extract<WriteJob, { kind: 'subagent' }>;

/** metadata JSON as the host's message writer stores it; the prompt and the result text are left out (never stored). */
export function subagentMessageMetadata(job: SubagentJob): string {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { prompt, result_text, ...payload } = job.payload;
  return JSON.stringify(
    {
      tool_call_id: job.toolCallId,
      ...(job.messageStatus !== null ? { status: job.messageStatus } : {}),
      ...(job.parentToolCallId !== null ? { parent_tool_call_id: job.parentToolCallId } : {}),
      normalized: { kind: 'subagent_task', subagent_task: payload },
    },
    (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value),
  );
}

export function subagentFrame(job: SubagentJob, executionId: string): SubagentFrame {
  return {
    sessionId: job.sessionId,
    taskId: job.taskId,
    turnId: job.turnId,
    executionId,
    toolCallId: job.toolCallId,
    parentToolCallId: job.parentToolCallId,
    toolStatus: job.toolStatus,
    payload: job.payload,
    ...(job.usage !== undefined ? { usage: job.usage } : {}),
  };
}

export function describeJobError(job: WriteJob, err: unknown): string {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  const what = job.kind === 'session' ? `session ${job.sessionId}` : `tool call ${job.toolCallId}`;
  return `writing ${what} failed${typeof code === 'string' ? ` (${code})` : ''}: ${err instanceof Error ? err.message : String(err)}`;
}

/** What one dialect's open transaction offers the job loop below. */
export interface JobScope {
  /** fn inside a savepoint: rolled back to it on failure, so the batch goes on. */
  savepoint(fn: () => Promise<void>): Promise<void>;
  /** Creates the session's row if absent; resolves with the task it is stored under. */
  ensureSession(job: WriteJob): Promise<string>;
  upsertMessage(job: SubagentJob): Promise<void>;
  /** Many message rows in one statement, each id at most once (batch-jobs.ts). */
  upsertMessages(rows: readonly MessageRow[]): Promise<void>;
  recordFrame(frame: SubagentFrame): Promise<RecordOutcome>;
  recordFrames(frames: SubagentFrame[]): Promise<RecordOutcome[]>;
}

/** One element of proxyUpsertSubagentMessagesBatch's :rows. */
export interface MessageRow {
  id: string;
  session_id: string;
  task_id: string;
  turn_id: string | null;
  metadata: string;
}

/**
 * The slow path, one job at a time (batch-jobs.ts takes it when the batch's message
 * statement fails, to find the failing job and write the others). Each job: its host rows in a savepoint, then its subagent row through the store (which
 * isolates itself with a savepoint of its own). A subagent row that fails keeps its message.
 * `sessions` caches the stored task of each session this batch's transaction has ensured (the
 * caller drops what a failed transaction added); a job takes its session's stored task.
 */
export async function writeJobs(jobs: readonly WriteJob[], scope: JobScope, executionId: string, sessions: Map<string, string>): Promise<JobResult> {
  const result: JobResult = { written: 0, failed: 0, errors: [] };
  for (const queued of jobs) {
    let job = queued;
    let ensuredHere = false;
    try {
      await scope.savepoint(async () => {
        let taskId = sessions.get(job.sessionId);
        if (taskId === undefined) {
          sessions.set(job.sessionId, (taskId = await scope.ensureSession(job)));
          ensuredHere = true;
        }
        job = { ...job, taskId };
        if (job.kind === 'subagent') await scope.upsertMessage(job);
      });
    } catch (err) {
      if (ensuredHere) sessions.delete(job.sessionId); // rolled back with the savepoint
      result.failed++;
      result.errors.push(describeJobError(job, err));
      continue;
    }
    if (job.kind === 'subagent') {
      const outcome = await scope.recordFrame(subagentFrame(job, executionId));
      if (outcome !== 'persisted') {
        result.failed++;
        result.errors.push(`the subagent row of tool call ${job.toolCallId} was not written (${outcome})`);
        continue;
      }
    }
    result.written++;
  }
  return result;
}
