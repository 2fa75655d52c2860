// Seeds the states the health check classifies, directly with SQL: activation keys in
// kandev_meta, task_session_subagents rows with raw observed_at text, subagent messages.
// Tests build states here rather than through runMigrations so each state is exact.
import { ACTIVATION_KEYS } from '../../src/index.js';
import { hostTimestamp, insertMessage, subagentMetadata } from './host-rows.js';
import type { TestDb } from './test-db.js';

export const KEY = ACTIVATION_KEYS;
export const SECOND = 1_000_000_000n;
export const MICRO = 1_000n;

export async function setKey(db: TestDb, key: string, value: string): Promise<void> {
  await db.query('INSERT INTO kandev_meta (key, value) VALUES ($1, $2)', [key, value]);
}

export interface SubagentRowSeed {
  id: string;
  sessionId: string;
  toolCallId: string;
  executionId?: string;
  taskId?: string;
  source?: 'live' | 'backfill';
  /** Raw observed_at text as stored (any Go-driver form on SQLite). */
  observedAt: string;
}

export async function insertSubagentRow(db: TestDb, r: SubagentRowSeed): Promise<void> {
  await db.query(
    `INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [r.id, r.sessionId, r.taskId ?? `task-${r.sessionId}`, r.executionId ?? 'unknown', r.toolCallId, r.source ?? 'live', r.observedAt],
  );
}

/** A host subagent tool-call message for (sessionId, toolCallId) created at `createdAt` (raw text). */
export async function insertSubagentMessage(
  db: TestDb,
  m: { id: string; sessionId: string; toolCallId: string; createdAt: string; taskId?: string | null },
): Promise<void> {
  await insertMessage(db, {
    id: m.id,
    sessionId: m.sessionId,
    taskId: m.taskId,
    metadata: subagentMetadata({ toolCallId: m.toolCallId, toolStatus: 'completed', subagent: { status: 'completed' } }),
    createdAt: m.createdAt,
  });
}

/** The dialect's canonical stored text for an instant. */
export function at(db: TestDb, ns: bigint): string {
  return hostTimestamp(db, ns);
}
