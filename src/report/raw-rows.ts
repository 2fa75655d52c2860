// Result rows of the report statements -> the neutral RawReport parts. Both dialects'
// statements return the same column names (SQLite as bigint or number, PostgreSQL as text,
// never through a host type parser), so one conversion serves both.
import { toCount } from '../count.js';
import { toDimension, toEra, toLead, type CardCounts, type FanOutRow, type RowCounts, type TokenBucketRow, type TokenGroupRow } from './queries.js';

type Row = Record<string, unknown>;

// Generated result interfaces carry no index signature, so rows are taken as plain objects.
// report_row_counts and report_cards are `@returns one`: their `.one()` threw NoRowError already.

export function toRowCounts(row: object): RowCounts {
  const c = row as Row;
  const n = (column: string) => toCount(c[column], `report: ${column}`);
  return {
    rows: n('rows'),
    live: n('live'),
    backfill: n('backfill'),
    liveBeforeCaptureSince: n('live_before_capture_since'),
    shadowedBackfillRows: n('shadowed_backfill_rows'),
    rowsWithoutTurn: n('rows_without_turn'),
    identifiedRows: n('identified_rows'),
    distinctExecutions: n('distinct_executions'),
    unknownRows: n('unknown_rows'),
    unknownBackfillRows: n('unknown_backfill_rows'),
    unknownLiveRowsSinceExecutionSince: n('unknown_live_rows_since_execution_since'),
  };
}

export function toCardCounts(row: object): CardCounts {
  const c = row as Row;
  const n = (column: string) => toCount(c[column], `report: ${column}`);
  return { tasks: n('tasks'), sessions: n('sessions'), tasksWithSubagents: n('tasks_with_subagents'), sessionsWithSubagents: n('sessions_with_subagents') };
}

export function toTokenGroupRow(row: object): TokenGroupRow {
  const r = row as Row;
  if (r.value !== null && typeof r.value !== 'string') throw new TypeError(`report: token group value is not text: ${String(r.value)}`);
  return {
    dimension: toDimension(r.dimension),
    value: r.value,
    rows: toCount(r.rows, 'report: rows'),
    settled: toCount(r.settled, 'report: settled'),
    measured: toCount(r.measured, 'report: measured'),
    totalTokens: toCount(r.total_tokens, 'report: total_tokens'),
  };
}

export function toTokenBucketRow(row: object): TokenBucketRow {
  const r = row as Row;
  return { digits: toCount(r.digits, 'report: digits'), lead: toLead(r.lead), subagents: toCount(r.subagents, 'report: subagents') };
}

export function toFanOutRow(row: object): FanOutRow {
  const r = row as Row;
  return {
    era: toEra(r.era),
    subagents: toCount(r.subagents, 'report: subagents'),
    turns: toCount(r.turns, 'report: turns'),
    pastUntil: toCount(r.past_until, 'report: past_until'),
  };
}
