// A batch of write jobs in a few statements instead of two per job plus a savepoint each
// (which kept PostgreSQL, one connection, fsync on, under a tenth of a 54,100-line burst):
// the batch's new sessions, then every message row in ONE statement, then every subagent row
// through the store's batch path (recordFrames: PostgreSQL's multi-row upsert rounds, SQLite's
// prepared upsert per frame), the frames of one tool call merged first where that is provably
// the same as applying them in order (coalesce-frames.ts). All of it inside the caller's
// transaction. If the message statement fails (a trigger, a constraint), the batch goes the
// slow way (writeJobs), where the failing job is isolated and the others are written.
import { coalesceFrames } from './coalesce-frames.js';
import type { WriteJob } from './acp-identity.js';
import {
  subagentFrame,
  subagentMessageId,
  subagentMessageMetadata,
  writeJobs,
  type JobResult,
  type JobScope,
  type MessageRow,
  type SubagentJob,
} from './proxy-database.js';

const isSubagent = (job: WriteJob): job is SubagentJob => job.kind === 'subagent';

/**
 * One row per message id: what upserting the jobs' rows one by one would leave — the last
 * job's metadata, the first non-null turn (COALESCE(stored, new)), the first job's task and
 * created_at (insert-only; every job of a session carries the session's one stored task, and
 * a batch shares one instant).
 */
export function messageRows(jobs: readonly SubagentJob[]): MessageRow[] {
  const rows = new Map<string, { row: MessageRow; last: SubagentJob }>();
  for (const job of jobs) {
    const id = subagentMessageId(job.sessionId, job.toolCallId);
    const seen = rows.get(id);
    if (seen) {
      seen.last = job;
      seen.row.turn_id ??= job.turnId;
    } else rows.set(id, { row: { id, session_id: job.sessionId, task_id: job.taskId, turn_id: job.turnId, metadata: '' }, last: job });
  }
  return Array.from(rows.values(), ({ row, last }) => ({ ...row, metadata: subagentMessageMetadata(last) }));
}

export async function writeBatch(jobs: readonly WriteJob[], scope: JobScope, executionId: string, sessions: Map<string, string>): Promise<JobResult> {
  const ensured: string[] = [];
  const resolved: WriteJob[] = [];
  try {
    await scope.savepoint(async () => {
      for (const job of jobs) {
        let taskId = sessions.get(job.sessionId);
        if (taskId === undefined) {
          sessions.set(job.sessionId, (taskId = await scope.ensureSession(job)));
          ensured.push(job.sessionId);
        }
        resolved.push(taskId === job.taskId ? job : { ...job, taskId }); // a job takes its session's stored task
      }
      const messages = resolved.filter(isSubagent);
      if (messages.length > 0) await scope.upsertMessages(messageRows(messages));
    });
  } catch {
    for (const id of ensured) sessions.delete(id); // rolled back with the savepoint
    return writeJobs(jobs, scope, executionId, sessions);
  }
  const subagents = resolved.filter(isSubagent);
  const result: JobResult = { written: resolved.length - subagents.length, failed: 0, errors: [] };
  if (subagents.length === 0) return result;
  const { frames, carrier } = coalesceFrames(subagents.map((job) => subagentFrame(job, executionId)));
  const outcomes = await scope.recordFrames(frames);
  subagents.forEach((job, i) => {
    const outcome = outcomes[carrier[i]];
    if (outcome === 'persisted') result.written++;
    else {
      result.failed++;
      result.errors.push(`the subagent row of tool call ${job.toolCallId} was not written (${outcome})`);
    }
  });
  return result;
}
