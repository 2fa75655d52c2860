// A batch of write jobs in a few statements instead of two per job plus a savepoint each
// (which kept PostgreSQL, one connection, fsync on, under a tenth of a 54,100-line burst):
// the batch's new sessions, then the message rows in one statement per round, then every
// subagent row through the store's batch path (recordFrames: PostgreSQL's multi-row upsert
// rounds, SQLite's prepared upsert per frame). Every update is written, in order: the upserts
// decide what a row keeps (queries/<dialect>/), nothing here merges updates. All of it inside
// the caller's transaction. If a message statement fails (a trigger, a constraint), the batch
// goes the slow way (writeJobs), where the failing job is isolated and the others are written.
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
 * The jobs' message rows in rounds in which each message id appears at most once (one
 * INSERT … ON CONFLICT cannot update a row twice on PostgreSQL), the k-th update of every
 * message in round k: applied round after round, each message's updates reach the upsert in
 * the order they were observed, as one statement per job would apply them.
 */
function messageRounds(jobs: readonly SubagentJob[]): MessageRow[][] {
  const rounds: MessageRow[][] = [];
  const seen = new Map<string, number>();
  for (const job of jobs) {
    const id = subagentMessageId(job.sessionId, job.toolCallId);
    const k = seen.get(id) ?? 0;
    seen.set(id, k + 1);
    (rounds[k] ??= []).push({ id, session_id: job.sessionId, task_id: job.taskId, turn_id: job.turnId, metadata: subagentMessageMetadata(job) });
  }
  return rounds;
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
      for (const round of messageRounds(resolved.filter(isSubagent))) await scope.upsertMessages(round);
    });
  } catch {
    for (const id of ensured) sessions.delete(id); // rolled back with the savepoint
    return writeJobs(jobs, scope, executionId, sessions);
  }
  const subagents = resolved.filter(isSubagent);
  const result: JobResult = { written: resolved.length - subagents.length, failed: 0, errors: [] };
  if (subagents.length === 0) return result;
  const outcomes = await scope.recordFrames(subagents.map((job) => subagentFrame(job, executionId)));
  subagents.forEach((job, i) => {
    if (outcomes[i] === 'persisted') result.written++;
    else {
      result.failed++;
      result.errors.push(`the subagent row of tool call ${job.toolCallId} was not written (${outcomes[i]})`);
    }
  });
  return result;
}
