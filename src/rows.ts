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

/** Every column passes through as the list statement returns it (ids, text, source); only the
 * ones a driver hands over in its own form are converted. A new text column needs no line here. */
export function toRow(raw: RawSubagentRow): SubagentContextRow {
  return {
    ...raw,
    is_async: Number(raw.is_async) !== 0,
    total_tokens: toMetric(raw.total_tokens),
    tool_use_count: toMetric(raw.tool_use_count),
    duration_ms: toMetric(raw.duration_ms),
    observed_at: timestamp(raw.observed_at, 'observed_at'),
    settled_at: raw.settled_at === null ? null : timestamp(raw.settled_at, 'settled_at'),
    updated_at: timestamp(raw.updated_at, 'updated_at'),
  };
}
