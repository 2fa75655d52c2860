// Seeds task_session_subagents rows with plain SQL, as the backfill or another execution's
// writer would have left them: the one row seeder every suite uses, so each state is exact
// and every expected figure can be computed by hand from the seed.
import type { TestDb } from './test-db.js';

interface SubagentRowColumns {
  sessionId: string;
  /** Default `task-<sessionId>`. */
  taskId?: string;
  turnId?: string | null;
  /** Default 'unknown' (AC-31: no identity). */
  executionId?: string;
  source?: 'live' | 'backfill';
  subagentType?: string | null;
  model?: string | null;
  agentStatus?: string | null;
  toolStatus?: string | null;
  totalTokens?: number | null;
  toolUseCount?: number | null;
  durationMs?: number | null;
  /** Raw stored text (hostTimestamp, sqliteForm or any host form). */
  observedAt: string;
  settledAt?: string | null;
  /** Default observedAt. */
  updatedAt?: string;
}

/** A row names its id or its tool_call_id or both: id defaults to `seeded-<executionId>-<toolCallId>`, tool_call_id to `tc-<id>`. */
export type SubagentRowSeed = SubagentRowColumns & ({ id: string; toolCallId?: string } | { id?: string; toolCallId: string });

export async function insertSubagentRow(db: TestDb, r: SubagentRowSeed): Promise<void> {
  const executionId = r.executionId ?? 'unknown';
  const toolCallId = r.toolCallId ?? `tc-${r.id}`;
  await db.query(
    `INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, subagent_type, model,
       agent_status, tool_status, total_tokens, tool_use_count, duration_ms, source, observed_at, settled_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      r.id ?? `seeded-${executionId}-${toolCallId}`,
      r.sessionId,
      r.taskId ?? `task-${r.sessionId}`,
      r.turnId ?? null,
      executionId,
      toolCallId,
      r.subagentType ?? null,
      r.model ?? null,
      r.agentStatus ?? null,
      r.toolStatus ?? null,
      r.totalTokens ?? null,
      r.toolUseCount ?? null,
      r.durationMs ?? null,
      r.source ?? 'live',
      r.observedAt,
      r.settledAt ?? null,
      r.updatedAt ?? r.observedAt,
    ],
  );
}
