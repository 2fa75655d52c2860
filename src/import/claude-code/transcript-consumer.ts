// Turns the lines of one Claude Code transcript into import units (src/import/import-store.ts):
// the launches it holds and their news as subagent jobs (each call's payload merged across the
// run, as the proxy's recognizer merges updates), its responses' usage through a UsageTally
// (the parent's in a main transcript, the subagent's own in a subagent's), and the progress.
import type { SubagentTaskPayload } from '../../types.js';
import { text } from '../../acp/wire.js';
import { recordableId } from '../../identity.js';
import { lineInstant, unrecordableBecause } from '../identity.js';
import type { ImportUnit, LaunchJob, TranscriptProgress } from '../import-store.js';
import type { JsonObject, TranscriptConsumer } from '../transcript-file.js';
import { UsageTally } from '../usage-tally.js';
import { launchesOf, notificationOf, responseOf, resultsOf, type Notification } from './records.js';

export const SOURCE = 'claude-code';

export interface TranscriptRole {
  sessionId: string;
  executionId: string;
  /** The tool calls of the session's subagents that have a sidecar: a result for one is a subagent's, even without toolUseResult. */
  subagentCalls: ReadonlySet<string>;
  /**
   * Whether an earlier import wrote the subagent row of this tool call (its launch): asked of a
   * task notification naming a call neither this transcript's lines nor a sidecar know.
   */
  launchedBefore(toolCallId: string): Promise<boolean>;
  /** The subagent whose own run this is (its tool call); null for the main transcript. */
  subagent: { toolCallId: string; job: ((at: bigint) => LaunchJob) | null } | null;
  /** --task, or the session's cwd when the caller already knows it. */
  task: string | undefined;
  /** When the session's folder names no cwd at all, or its task is one the store cannot record: its project folder's name. */
  fallbackTask: string;
  /** The task (--task or the cwd) cannot be recorded (src/identity.ts): told why, each time fallbackTask is used instead. */
  refuseTask(why: string): void;
  clock: () => bigint;
  commit(unit: ImportUnit): Promise<void>;
}

function merge(into: SubagentTaskPayload, from: SubagentTaskPayload): SubagentTaskPayload {
  const out: Record<string, unknown> = { ...into };
  for (const [k, v] of Object.entries(from)) if (v !== undefined) out[k] = v;
  return out as SubagentTaskPayload;
}

export class ClaudeTranscriptConsumer implements TranscriptConsumer {
  private readonly tally: UsageTally;
  private jobs: LaunchJob[] = [];
  private readonly calls = new Map<string, { payload: SubagentTaskPayload; status: string | null }>();
  private turnId: string | null;
  private cwd: string | undefined;
  private firstAt: bigint | undefined;
  private lastAt: bigint | undefined;
  private committedOffset: number;
  /** The transcript was never imported: its session row may not exist yet (an imported one's does: its progress row's key needs it). */
  private firstImport: boolean;
  /**
   * Task notifications naming a call this run has not seen launched, with the turn and instant
   * of their line: a background subagent an earlier import launched, or a background shell
   * command's end (the same notification, no subagent). Decided before the unit is committed.
   */
  private unclaimed: { notification: Notification; turnId: string | null; at: bigint }[] = [];

  constructor(
    private readonly role: TranscriptRole,
    progress: TranscriptProgress,
  ) {
    this.tally = new UsageTally(progress.last);
    this.turnId = progress.turnId;
    this.committedOffset = progress.byteOffset;
    this.firstImport = progress.byteOffset === 0;
  }

  line(line: JsonObject): void {
    this.cwd ??= text(line.cwd);
    // The turn id as the store reads a frame's (AC-2a): one it cannot record is no turn, on both
    // dialects, for the message row as for the subagent row.
    const promptId = text(line.promptId);
    if (promptId) this.turnId = recordableId(promptId);
    const at = lineInstant(line.timestamp);
    if (at !== undefined) {
      this.firstAt ??= at;
      this.lastAt = at;
    }
    const when = at ?? this.lastAt ?? this.role.clock();
    const response = responseOf(line);
    if (response) this.tally.add(response.messageId, response.model, response.usage);
    const parent = this.role.subagent?.toolCallId ?? null;
    for (const launch of launchesOf(line)) {
      this.push(launch.toolUseId, parent, 'pending', launch.payload, when);
      // A nested launch, the only kind whose row a line read earlier can have created (its notice,
      // queued in the main transcript): its row and message row begin here (LaunchJob.launch).
      if (parent !== null) this.jobs[this.jobs.length - 1].launch = true;
    }
    for (const result of resultsOf(line)) {
      // A tool result is a subagent's when its toolUseResult says so, or when it answers a
      // launch of this run or one a sidecar names (a nested launch's result has no toolUseResult).
      if (!result.payload && !this.calls.has(result.toolUseId) && !this.role.subagentCalls.has(result.toolUseId)) continue;
      this.push(result.toolUseId, parent, result.failed ? 'failed' : 'completed', result.payload ?? {}, when);
    }
    const notification = this.role.subagent ? undefined : notificationOf(line);
    if (!notification) return;
    if (this.calls.has(notification.toolUseId) || this.role.subagentCalls.has(notification.toolUseId))
      this.push(notification.toolUseId, null, null, notification.payload, when);
    // An id no row can have (a NUL, over 512 bytes) names no launch an earlier import wrote; the store is not asked.
    else if (recordableId(notification.toolUseId) !== null) this.unclaimed.push({ notification, turnId: this.turnId, at: when });
  }

  /** The unclaimed notifications that end a subagent an earlier import launched join the unit; the others (a shell command's) are dropped. */
  private async claimNotifications(): Promise<void> {
    const unclaimed = this.unclaimed;
    this.unclaimed = [];
    for (const { notification, turnId, at } of unclaimed)
      if (this.calls.has(notification.toolUseId) || (await this.role.launchedBefore(notification.toolUseId)))
        this.push(notification.toolUseId, null, null, notification.payload, at, turnId);
  }

  private push(
    toolCallId: string,
    parentToolCallId: string | null,
    toolStatus: string | null,
    payload: SubagentTaskPayload,
    at: bigint,
    turnId: string | null = this.turnId,
  ): void {
    const known = this.calls.get(toolCallId);
    const merged = { payload: merge(known?.payload ?? {}, payload), status: toolStatus ?? known?.status ?? null };
    this.calls.set(toolCallId, merged);
    this.jobs.push({
      kind: 'subagent',
      sessionId: this.role.sessionId,
      taskId: '',
      turnId,
      toolCallId,
      parentToolCallId,
      toolStatus,
      messageStatus: merged.status,
      payload: merged.payload,
      at,
    });
  }

  /** --task, else the cwd, when the store can record it: a task id it cannot would make it refuse every subagent row of the session. */
  private taskId(): string {
    const task = this.role.task ?? this.cwd;
    if (task === undefined) return this.role.fallbackTask;
    if (recordableId(task) !== null) return task;
    this.role.refuseTask(`the ${this.role.task === undefined ? 'cwd' : '--task'} cannot be a task id: ${unrecordableBecause(task)}`);
    return this.role.fallbackTask;
  }

  async flush(progress: TranscriptProgress, last: boolean): Promise<void> {
    const sub = this.role.subagent;
    // The sidecar's news about this subagent's own call (agent id, type, model), once per run
    // that read lines, at the instant of the last one. It never settles the row: the launching
    // transcript's result line does, so the row's instants do not depend on which file's lines
    // arrived first.
    if (last && sub?.job && progress.byteOffset !== this.committedOffset) this.jobs.push(sub.job(this.lastAt ?? this.role.clock()));
    if (this.unclaimed.length) await this.claimNotifications();
    const deltas = this.tally.drain();
    if (!this.jobs.length && !deltas.size && progress.byteOffset === this.committedOffset) return;
    // The session's row takes its task once, from the unit that creates it: without --task, a
    // unit that writes nothing but progress waits until a line names the cwd (Claude Code's first
    // lines, its queue operations, name none). Its lines are read again by the next run. Only
    // while the transcript was never imported: later lines without a cwd have a session row to
    // join, and waiting for a cwd there read them again on every run.
    if (!this.jobs.length && !deltas.size && this.role.task === undefined && this.cwd === undefined && this.firstImport) return;
    progress.turnId = this.turnId;
    progress.last = this.tally.lastResponse();
    const now = this.role.clock();
    await this.role.commit({
      source: SOURCE,
      sessionId: this.role.sessionId,
      taskId: this.taskId(),
      executionId: this.role.executionId,
      sessionAt: this.firstAt ?? now,
      jobs: this.jobs,
      subagentUsage: sub ? { toolCallId: sub.toolCallId, deltas } : null,
      parentUsage: sub ? null : deltas,
      progress: { ...progress, last: progress.last && { ...progress.last } },
      fromOffset: this.committedOffset,
      at: now,
    });
    this.jobs = [];
    this.committedOffset = progress.byteOffset;
    this.firstImport = false; // the session row exists now
  }
}
