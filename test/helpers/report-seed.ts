// Seeds report fixtures directly with SQL: sessions, host messages and task_session_subagents
// rows with every column the report reads, timestamps as raw stored text. Tests build each
// state exactly here rather than through the writer, so every expected figure is computed
// by hand from the seed.
import { hostTimestamp } from './host-rows.js';
import type { TestDb } from './test-db.js';

export async function seedSession(db: TestDb, id: string, taskId: string): Promise<void> {
  const at = hostTimestamp(db, 1_767_225_600_000_000_000n); // 2026-01-01
  await db.query('INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ($1, $2, $3, $4)', [id, taskId, at, at]);
}

/** A plain chat message: what makes a session active in a window without any subagent. */
export async function seedMessage(db: TestDb, id: string, sessionId: string, createdAt: string): Promise<void> {
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
     VALUES ($1, $2, '', 'user', 'hello', 'message', NULL, $3)`,
    [id, sessionId, createdAt],
  );
}

export interface ReportRowSeed {
  id: string;
  sessionId: string;
  /** The row's own (denormalised) task id; the report scopes through the session's task. */
  taskId: string;
  turnId: string | null;
  source: 'live' | 'backfill';
  executionId: string;
  /** Raw stored text. */
  observedAt: string;
  settledAt: string | null;
  totalTokens: number | null;
  subagentType?: string | null;
  model?: string | null;
}

export async function seedRow(db: TestDb, r: ReportRowSeed): Promise<void> {
  await db.query(
    `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id,
       subagent_type, model, total_tokens, source, observed_at, settled_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $11)`,
    [
      r.id,
      r.sessionId,
      r.taskId,
      r.turnId,
      r.executionId,
      `tc-${r.id}`,
      r.subagentType ?? null,
      r.model ?? null,
      r.totalTokens,
      r.source,
      r.observedAt,
      r.settledAt,
    ],
  );
}

export async function seedKeys(
  db: TestDb,
  keys: Partial<Record<'subagent_context_capture_since' | 'subagent_context_backfill_through' | 'subagent_context_execution_since', string>>,
): Promise<void> {
  for (const [key, value] of Object.entries(keys)) await db.query('INSERT INTO kandev_meta (key, value) VALUES ($1, $2)', [key, value]);
}
