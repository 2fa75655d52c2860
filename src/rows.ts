// Driver values -> SubagentContextRow. SQLite hands integers back as bigint (safeIntegers),
// PostgreSQL hands BIGINT back as text; both become a number when exact, else a bigint.
import type { SubagentContextRow } from './types.js';

export function toMetric(value: bigint | string | number | null): number | bigint | null {
  if (value === null) return null;
  const n = typeof value === 'bigint' ? value : BigInt(value);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

type TextColumns = Omit<SubagentContextRow, 'is_async' | 'total_tokens' | 'tool_use_count' | 'duration_ms' | 'observed_at' | 'settled_at' | 'updated_at'>;

/** The shape both dialects' list queries share before their numeric columns are converted. */
export interface RawSubagentRow extends TextColumns {
  is_async: bigint | number;
  total_tokens: bigint | string | null;
  tool_use_count: bigint | string | null;
  duration_ms: bigint | string | null;
  observed_at: unknown;
  settled_at: unknown;
  updated_at: unknown;
}

function timestamp(value: unknown, column: string): string {
  if (typeof value !== 'string') throw new TypeError(`${column} is not a readable timestamp: ${String(value)}`);
  return value;
}

export function toRow(raw: RawSubagentRow): SubagentContextRow {
  return {
    id: raw.id,
    task_session_id: raw.task_session_id,
    task_id: raw.task_id,
    turn_id: raw.turn_id,
    agent_execution_id: raw.agent_execution_id,
    tool_call_id: raw.tool_call_id,
    parent_tool_call_id: raw.parent_tool_call_id,
    subagent_type: raw.subagent_type,
    description: raw.description,
    agent_id: raw.agent_id,
    child_session_id: raw.child_session_id,
    model: raw.model,
    agent_status: raw.agent_status,
    tool_status: raw.tool_status,
    is_async: Number(raw.is_async) !== 0,
    total_tokens: toMetric(raw.total_tokens),
    tool_use_count: toMetric(raw.tool_use_count),
    duration_ms: toMetric(raw.duration_ms),
    source: raw.source,
    observed_at: timestamp(raw.observed_at, 'observed_at'),
    settled_at: raw.settled_at === null ? null : timestamp(raw.settled_at, 'settled_at'),
    updated_at: timestamp(raw.updated_at, 'updated_at'),
  };
}
