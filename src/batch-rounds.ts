// recordFrames' one-statement path (queries/<dialect>/upsert_subagent_contexts_batch.sql):
// a burst becomes rounds in which each (session, execution, tool call) key appears at most
// once — one INSERT … ON CONFLICT cannot update the same row twice — with the k-th frame of
// every key in round k, so each key's frames still apply in the order they were observed.
// Each frame travels as one JSON object keyed by column name; metrics as decimal strings,
// exact for all of int64 on both dialects.
import { randomUUID } from 'node:crypto';
import type { UpsertInput } from './frame-normalization.js';

export interface PendingFrame {
  readonly input: UpsertInput;
  readonly observedAtNs: bigint;
}

export function batchRounds<T extends PendingFrame>(batch: readonly T[]): T[][] {
  const rounds: T[][] = [];
  const seen = new Map<string, number>();
  for (const frame of batch) {
    const { sessionId, executionId, toolCallId } = frame.input;
    const key = `${sessionId}\u0000${executionId}\u0000${toolCallId}`; // NUL never occurs in an id
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    (rounds[k] ??= []).push(frame);
  }
  return rounds;
}

const decimal = (n: bigint | null) => (n === null ? null : n.toString());

/** One round's `:frames` parameter; `columnTime` renders the dialect's column timestamp. */
export function roundParameter(round: readonly PendingFrame[], columnTime: (ns: bigint) => string): string {
  return JSON.stringify(
    round.map(({ input, observedAtNs }) => ({
      id: randomUUID(),
      task_session_id: input.sessionId,
      task_id: input.taskId,
      turn_id: input.turnId,
      agent_execution_id: input.executionId,
      tool_call_id: input.toolCallId,
      parent_tool_call_id: input.parentToolCallId,
      subagent_type: input.subagentType,
      description: input.description,
      agent_id: input.agentId,
      child_session_id: input.childSessionId,
      model: input.model,
      agent_status: input.agentStatus,
      tool_status: input.toolStatus,
      is_async: input.isAsync,
      total_tokens: decimal(input.totalTokens),
      tool_use_count: decimal(input.toolUseCount),
      duration_ms: decimal(input.durationMs),
      observed_at: columnTime(observedAtNs),
    })),
  );
}
