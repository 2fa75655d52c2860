// Driver values -> SubagentContextRow. SQLite hands integers back as bigint (safeIntegers),
// PostgreSQL hands BIGINT back as text; both become a number when exact, else a bigint.
import { clipMarked } from './clip-text.js';
import { SubagentContextError } from './errors.js';
import { visible } from './render/display-text.js';
import type { SubagentContextRow } from './types.js';

/**
 * What the list statements return, before the stored text, for a TIMESTAMP value that reads as
 * no instant (scripts/lib/schema-columns.ts): a formatted instant starts with its year's digit.
 */
export const UNREADABLE_INSTANT = 'unreadable instant: ';

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

/** Most characters of a stored value or id an error repeats: it is the store's data, and may be long. */
const MAX_SHOWN = 64;

/**
 * A stored value as an error shows it: quoted, each control character as its escape (no newline,
 * terminal control or bidi override reaches a log or a terminal: render/display-text.ts), cut
 * with its length.
 */
function shown(value: unknown): string {
  return `"${visible(clipMarked(typeof value === 'string' ? value : String(value), MAX_SHOWN))}"`;
}

/**
 * A formatted instant, or an error naming the row: a value written outside the package (an
 * offset SQLite's parser cannot read, PostgreSQL's 'infinity') is never passed on as if it
 * were one, nor read as absent.
 */
function timestamp(value: unknown, column: string, raw: RawSubagentRow): string {
  if (typeof value === 'string' && !value.startsWith(UNREADABLE_INSTANT)) return value;
  const stored = typeof value === 'string' ? value.slice(UNREADABLE_INSTANT.length) : value;
  throw new SubagentContextError(
    'unreadable_row',
    `row ${shown(raw.id)} of task_session_subagents (session ${shown(raw.task_session_id)}, tool call ${shown(raw.tool_call_id)}): ` +
      `its ${column} holds ${shown(stored)}, which this package cannot read as an instant (a value it did not write)`,
  );
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
    observed_at: timestamp(raw.observed_at, 'observed_at', raw),
    settled_at: raw.settled_at === null ? null : timestamp(raw.settled_at, 'settled_at', raw),
    updated_at: timestamp(raw.updated_at, 'updated_at', raw),
  };
}
