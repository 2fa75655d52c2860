// Seeds host rows (task_sessions, task_session_messages) the way the host writes them.
// The package never writes these tables; tests and the demo stand in for the host.
import { hostTimestamp } from './host-timestamp.js';
import type { TestDb } from './test-db.js';

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

/** A tool-call message from the agent (the rows the backfill reads). */
export async function insertMessage(db: TestDb, m: MessageSeed): Promise<void> {
  await insertHostMessage(db, m, { author: 'agent', content: '', type: 'tool_call' });
}

/** A plain chat message from the user: what makes a session active in a report window without any subagent. */
export async function insertChatMessage(db: TestDb, id: string, sessionId: string, createdAt: string): Promise<void> {
  await insertHostMessage(db, { id, sessionId, taskId: '', metadata: null, createdAt }, { author: 'user', content: 'hello', type: 'message' });
}

/** A host subagent tool-call message for (sessionId, toolCallId) created at `createdAt` (raw text), completed. */
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

async function insertHostMessage(db: TestDb, m: MessageSeed, kind: { author: string; content: string; type: string }): Promise<void> {
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      m.id,
      m.sessionId,
      m.taskId === undefined ? `task-${m.sessionId}` : m.taskId,
      m.turnId ?? null,
      kind.author,
      kind.content,
      kind.type,
      m.metadata,
      m.createdAt,
      m.updatedAt ?? null,
    ],
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

/**
 * Sessions s0, s1, … each with `toolCalls` tool calls toolu_1, … of two competing messages
 * (v0, then v1 a minute later: v1 wins), and, with `chat`, a chat message after them: the
 * backfill tests' store whose rows are easy to predict.
 */
export async function seedCompetingToolCalls(
  db: TestDb,
  { sessions, toolCalls, chat = false }: { sessions: number; toolCalls: number; chat?: boolean },
): Promise<void> {
  for (let s = 0; s < sessions; s++) {
    await insertSession(db, `s${s}`);
    for (let t = 1; t <= toolCalls; t++)
      for (let v = 0; v < 2; v++)
        await insertMessage(db, {
          id: `s${s}-t${t}-v${v}`,
          sessionId: `s${s}`,
          createdAt: hostTimestamp(db.dialect, `2026-08-01 10:0${v}:0${t}`),
          metadata: subagentMetadata({ toolCallId: `toolu_${t}`, toolStatus: 'completed', subagent: { description: `v${v}`, total_tokens: 10 + v } }),
        });
    if (chat) await insertChatMessage(db, `s${s}-chat`, `s${s}`, hostTimestamp(db.dialect, '2026-08-01 10:05:00'));
  }
}
