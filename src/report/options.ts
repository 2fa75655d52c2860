// store.report()'s options, checked before any statement runs: a window of two RFC3339
// instants (since <= observed_at < until, DESIGN §9) and an optional task scope. Every
// rejection is a SubagentContextError whose code names what was wrong, so a host can map it
// to its own "bad request" without matching message text.
import { isBoundaryInstant } from '../column-time.js';
import { formatKeyInstant, parseInstant } from '../instant.js';
import { reportError, type ReportErrorCode } from './errors.js';
import type { ReportOptions } from './types.js';

/** The checked options: instants as nanoseconds, null when absent. */
export interface ReportRequest {
  sinceNs: bigint | null;
  untilNs: bigint | null;
  /** Deduplicated, in first-seen order; null = every task. */
  taskIds: string[] | null;
}

// RFC3339 proper: a 'T' (or 't') separator and an explicit zone. parseInstant alone would
// also take a space and a missing zone (stored column forms), which a caller's instant must
// not rely on: an instant without a zone means a different time on every host.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const fail = (code: ReportErrorCode, message: string) => reportError(code, message);

function instant(name: 'since' | 'until', value: unknown): bigint | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw fail('invalid_report_window', `${name} must be an RFC3339 instant string, got ${typeof value}`);
  const ns = RFC3339.test(value) ? parseInstant(value.toUpperCase()) : null;
  if (ns === null) {
    throw fail(
      'invalid_report_window',
      `${name} ${JSON.stringify(value)} is not an RFC3339 instant (e.g. 2026-08-01T00:00:00Z or 2026-08-01T02:00:00.5+02:00)`,
    );
  }
  if (!isBoundaryInstant(ns)) {
    throw fail('invalid_report_window', `${name} ${JSON.stringify(value)} is outside 1970-01-01T00:00:00Z … 9999-12-31T23:59:59Z`);
  }
  return ns;
}

function taskIdList(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw fail('invalid_report_scope', `taskIds must be an array of task id strings, got ${typeof value}`);
  const seen = new Set<string>();
  value.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || id === '')
      throw fail('invalid_report_scope', `taskIds[${i}] must be a non-empty string, got ${id === '' ? "''" : typeof id}`);
    // Neither can be a stored task id on PostgreSQL (text holds no NUL; JSON no lone
    // surrogate), so both dialects reject them alike rather than one silently matching nothing.
    if (id.includes('\u0000') || LONE_SURROGATE.test(id)) throw fail('invalid_report_scope', `taskIds[${i}] contains a NUL or an unpaired surrogate`);
    seen.add(id);
  });
  return [...seen];
}

export function checkReportOptions(options: unknown): ReportRequest {
  if (options === undefined || options === null) return { sinceNs: null, untilNs: null, taskIds: null };
  if (typeof options !== 'object' || Array.isArray(options))
    throw fail('invalid_report_options', 'report options must be an object: { since?, until?, taskIds? }');
  const o = options as ReportOptions & Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !['since', 'until', 'taskIds'].includes(k));
  if (unknown.length)
    throw fail('invalid_report_options', `unknown report option${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (accepted: since, until, taskIds)`);
  const sinceNs = instant('since', o.since);
  const untilNs = instant('until', o.until);
  if (sinceNs !== null && untilNs !== null && sinceNs >= untilNs) {
    throw fail(
      'invalid_report_window',
      `since (${formatKeyInstant(sinceNs)}) must be before until (${formatKeyInstant(untilNs)}): the window is since <= observed_at < until`,
    );
  }
  return { sinceNs, untilNs, taskIds: taskIdList(o.taskIds) };
}
