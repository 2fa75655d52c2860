// Accumulation per tool call: every field learned on any update reaches the payload, and a
// later absent, empty or non-measurement value never overwrites a learned one — the spec's
// AC-4 (absent never blanks), AC-7a (a reported 0 of total_tokens/duration_ms is "not
// reported") and AC-8 (tool_use_count 0 is a reported zero, but never replaces a count)
// applied to the payload as it is built, so a status-less frame and the terminal one carry
// the same learned fields. Text replaces text (AC-5's replace rule: later is better; Claude
// sends a partial input, then the full one). is_async is sticky (AC-6).
import { payloadTextFields } from '../../generated/columns.js';
import type { SubagentTaskPayload } from '../types.js';

type Metric = number | bigint;
/** Every payload field a text column stores (from the column tags: a new column's is here with no edit), and the two no column stores. */
const TEXT_FIELDS = [...payloadTextFields, 'prompt', 'result_text'] as const;

/** A value the store would keep as a measurement; `zeroCounts`: 0 is one (tool_use_count). */
function measured(v: unknown, zeroCounts: boolean): boolean {
  if (typeof v === 'bigint') return zeroCounts ? v >= 0n : v > 0n;
  return typeof v === 'number' && Number.isInteger(v) && (zeroCounts ? v >= 0 : v > 0) && v < 2 ** 63;
}

const isZero = (v: Metric) => v === 0 || v === 0n;

function mergeMetric(learned: Metric | null | undefined, next: Metric | null | undefined, zeroCounts: boolean): Metric | null | undefined {
  if (next === undefined || next === null) return learned;
  // Nothing measured yet: take the value as reported; the store judges it and counts an anomaly (AC-9).
  if (learned === undefined || learned === null || !measured(learned, zeroCounts)) return next;
  if (!measured(next, zeroCounts)) return learned;
  return isZero(next) && !isZero(learned) ? learned : next; // a reported 0 never replaces a count
}

/** Merges `next` into `learned` in place; returns `learned`. */
export function mergePayload(learned: SubagentTaskPayload, next: SubagentTaskPayload): SubagentTaskPayload {
  for (const key of TEXT_FIELDS) {
    const v = next[key];
    if (typeof v === 'string' && v !== '') learned[key] = v;
  }
  const tokens = mergeMetric(learned.total_tokens, next.total_tokens, false);
  if (tokens !== undefined && tokens !== null) learned.total_tokens = tokens;
  const duration = mergeMetric(learned.duration_ms, next.duration_ms, false);
  if (duration !== undefined && duration !== null) learned.duration_ms = duration;
  const count = mergeMetric(learned.tool_use_count, next.tool_use_count, true);
  if (count !== undefined && count !== null) learned.tool_use_count = count;
  if (next.is_async === true) learned.is_async = true;
  else if (next.is_async === false && learned.is_async === undefined) learned.is_async = false;
  return learned;
}
