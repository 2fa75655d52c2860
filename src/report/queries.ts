// What the dialect-neutral report needs from a database: the report statements of
// queries/<dialect>/report_*.sql, read in ONE snapshot so every figure describes the same
// store. src/sqlite/report.ts and src/postgres/report.ts implement it with generated
// functions, each binding the instants its own way (docs/timestamps.md).
import { toCount } from '../count.js';
import type { TablePresence } from '../health/queries.js';
import type { HealthReport } from '../types.js';
import type { ReportBoundaries } from './boundaries.js';
import type { ReportRequest } from './options.js';
import type { RawUsageLedger } from './usage-ledger.js';

/** The instants and scope every report statement binds. */
export interface ReportBounds extends ReportRequest, ReportBoundaries {}

export interface RowCounts {
  rows: number;
  live: number;
  backfill: number;
  liveBeforeCaptureSince: number;
  shadowedBackfillRows: number;
  rowsWithoutTurn: number;
  identifiedRows: number;
  distinctExecutions: number;
  unknownRows: number;
  unknownBackfillRows: number;
  unknownLiveRowsSinceExecutionSince: number;
}

export interface TokenGroupRow {
  dimension: 'source' | 'subagent_type' | 'model';
  value: string | null;
  rows: number;
  settled: number;
  measured: number;
  totalTokens: number;
}

/** total_tokens in [lead, next lead) x 10^(digits-1) (report_token_distribution.sql). */
export interface TokenBucketRow {
  digits: number;
  lead: 1 | 2 | 5;
  subagents: number;
}

export interface FanOutRow {
  era: 'known' | 'unknown' | 'before_since';
  subagents: number;
  turns: number;
  pastUntil: number;
}

export interface CardCounts {
  tasks: number;
  sessions: number;
  tasksWithSubagents: number;
  sessionsWithSubagents: number;
}

export interface RawReport {
  keys: HealthReport['keys'];
  bounds: ReportBounds;
  rowCounts: RowCounts;
  tokens: TokenGroupRow[];
  distribution: TokenBucketRow[];
  fanOut: FanOutRow[];
  cards: CardCounts;
  /** The usage ledger's rows for the same scope, or null when the store has no ledger tables. */
  usageLedger: RawUsageLedger | null;
}

export interface ReportReader {
  /** Which of the tables the report reads exist. */
  probeTables(): Promise<TablePresence>;
  /**
   * Reads the activation keys, turns them into bounds with `plan`, and runs every report
   * statement with those bounds, all in one read snapshot.
   */
  read(plan: (keys: HealthReport['keys']) => ReportBounds): Promise<RawReport>;
}

const ERAS: readonly FanOutRow['era'][] = ['known', 'unknown', 'before_since'];
const DIMENSIONS: readonly TokenGroupRow['dimension'][] = ['source', 'subagent_type', 'model'];
const LEADS: readonly TokenBucketRow['lead'][] = [1, 2, 5];

export function toEra(value: unknown): FanOutRow['era'] {
  if (!ERAS.includes(value as FanOutRow['era'])) throw new TypeError(`report: unexpected fan-out era ${String(value)}`);
  return value as FanOutRow['era'];
}

export function toDimension(value: unknown): TokenGroupRow['dimension'] {
  if (!DIMENSIONS.includes(value as TokenGroupRow['dimension'])) throw new TypeError(`report: unexpected token dimension ${String(value)}`);
  return value as TokenGroupRow['dimension'];
}

export function toLead(value: unknown): TokenBucketRow['lead'] {
  const n = toCount(value, 'report: lead');
  if (!LEADS.includes(n as TokenBucketRow['lead'])) throw new TypeError(`report: unexpected bucket lead ${String(value)}`);
  return n as TokenBucketRow['lead'];
}
