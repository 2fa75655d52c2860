// Seeds host rows (task_sessions, task_session_messages) the way the host writes them.
// The package never writes these tables; tests and the demo stand in for the host.
import { formatMicros, formatSqliteColumn } from '../../src/instant.js';
import type { TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';

/**
 * Host timestamp text for a dialect: on SQLite the fixed-width `…ffffff+00:00` form (one the
 * Go driver also writes whenever the last microsecond digit is non-zero; the trimmed forms
 * are src/demo/host-rows.ts's goDriverTimestamp), UTC TIMESTAMP text on PostgreSQL.
 */
export function hostTimestamp(db: TestDb, ns: bigint): string {
  return byDialect(db.dialect, { sqlite: () => formatSqliteColumn(ns), postgres: () => formatMicros(ns) })();
}

export async function insertSession(db: TestDb, id: string, taskId = `task-${id}`, atNs = 1_785_000_000_000_000_000n): Promise<void> {
  const at = hostTimestamp(db, atNs);
  await db.query('INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ($1, $2, $3, $4)', [id, taskId, at, at]);
}

export interface MessageSeed {
  id: string;
  sessionId: string;
  taskId?: string | null;
  turnId?: string | null;
  metadata: string | null;
  /** Raw created_at text as the host stored it (any Go-driver form on SQLite). */
  createdAt: string;
  updatedAt?: string | null;
}

export async function insertMessage(db: TestDb, m: MessageSeed): Promise<void> {
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'agent', '', 'tool_call', $5, $6, $7)`,
    [m.id, m.sessionId, m.taskId === undefined ? `task-${m.sessionId}` : m.taskId, m.turnId ?? null, m.metadata, m.createdAt, m.updatedAt ?? null],
  );
}

/** metadata JSON for a subagent tool-call message, as the host's message writer stores it. */
export function subagentMetadata(opts: { toolCallId: string; toolStatus?: string; parentToolCallId?: string; subagent: Record<string, unknown> }): string {
  return JSON.stringify({
    tool_call_id: opts.toolCallId,
    ...(opts.toolStatus !== undefined ? { status: opts.toolStatus } : {}),
    ...(opts.parentToolCallId !== undefined ? { parent_tool_call_id: opts.parentToolCallId } : {}),
    normalized: { kind: 'subagent_task', subagent_task: opts.subagent },
  });
}
