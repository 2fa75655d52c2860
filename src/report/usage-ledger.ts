// The report's `usage_ledger` member (issue 33): the usage ledger's figures for the report's
// scope, read in the report's snapshot by queries/<dialect>/report_usage_ledger.sql (per
// subagent type and model, and the parents' own per model) and report_usage_ledger_sessions.sql
// (per session, per card, and all of them). Every figure is a sum or count the database
// returned; this file only converts them and derives the two ratios. Absent from the report
// when no session in scope has ledger figures (nothing imported, or a store the ledger's
// migration has not reached: a read-only report never creates tables). docs/report.md.
import { toCount } from '../count.js';

/** One figure of the ledger summed over a group: null when no row of the group reported it (never 0). */
export type LedgerSum = number | null;

export interface UsageLedgerFigures {
  requests: LedgerSum;
  input_tokens: LedgerSum;
  output_tokens: LedgerSum;
  cache_read_input_tokens: LedgerSum;
  cache_creation_input_tokens: LedgerSum;
  /** The four token figures summed over the rows that reported any; null when none did. */
  tokens: LedgerSum;
  /** Ledger rows missing one of the four figures: when not 0, `tokens` is a lower bound. */
  unreported_rows: number;
}

/** Tokens of the subagent runs of one subagent_type (the subagent row's; null = not reported) on one model. */
export interface UsageLedgerGroup extends UsageLedgerFigures {
  subagent_type: string | null;
  model: string;
  /** Distinct runs (session, execution, tool call) with ledger rows for this model. */
  runs: number;
}

/** The parent sessions' own usage on one model (their main transcripts). */
export interface UsageLedgerParentGroup extends UsageLedgerFigures {
  model: string;
  sessions: number;
}

/** The subagents' share of a set of sessions' tokens, beside the spec's reported total_tokens. */
export interface UsageLedgerShare {
  sessions: number;
  /** Subagent runs with ledger rows. */
  runs: number;
  /** The runs' tokens, every response; 0 without runs; null when a session's runs reported no figure. */
  subagent_tokens: LedgerSum;
  subagent_unreported_rows: number;
  /** The parents' own tokens; null when a session has no parent usage in the ledger (a live intake records subagents only). */
  parent_tokens: LedgerSum;
  parent_unreported_rows: number;
  /** subagent_tokens / (subagent_tokens + parent_tokens), 0…1; null when either is null or both are 0. */
  subagent_share: number | null;
  /** Sum of the spec's total_tokens over the same runs' subagent rows (Claude Code: each run's last response); null when none reported it. */
  reported_total_tokens: LedgerSum;
  /** Runs whose subagent row reported total_tokens. */
  reported_runs: number;
  /** reported_total_tokens / subagent_tokens: how much of the runs' usage total_tokens shows; null when either is null or 0. */
  reported_coverage: number | null;
}

export interface UsageLedgerCard extends UsageLedgerShare {
  task_id: string;
}

export interface UsageLedgerSession extends UsageLedgerShare {
  task_id: string;
  task_session_id: string;
}

export interface UsageLedgerReport {
  /** Every session in scope. */
  all: UsageLedgerShare;
  /** Most tokens first. A run that used two models is in two groups. */
  by_subagent_type_and_model: UsageLedgerGroup[];
  parents_by_model: UsageLedgerParentGroup[];
  /** One per card (task), most subagent tokens first. */
  by_card: UsageLedgerCard[];
  /** One per session, most subagent tokens first. */
  by_session: UsageLedgerSession[];
}

/** The two statements' rows as the drivers return them (SQLite bigint or number, PostgreSQL text). */
export interface RawUsageLedger {
  groups: object[];
  shares: object[];
}

type Row = Record<string, unknown>;

const sum = (value: unknown, what: string): LedgerSum => (value === null ? null : toCount(value, `report: usage ledger ${what}`));
const count = (value: unknown, what: string): number => toCount(value, `report: usage ledger ${what}`);

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TypeError(`report: usage ledger ${what} is not text: ${String(value)}`);
  return value;
}

function figures(r: Row): UsageLedgerFigures {
  return {
    requests: sum(r.requests, 'requests'),
    input_tokens: sum(r.input_tokens, 'input_tokens'),
    output_tokens: sum(r.output_tokens, 'output_tokens'),
    cache_read_input_tokens: sum(r.cache_read_input_tokens, 'cache_read_input_tokens'),
    cache_creation_input_tokens: sum(r.cache_creation_input_tokens, 'cache_creation_input_tokens'),
    tokens: sum(r.tokens, 'tokens'),
    unreported_rows: count(r.unreported, 'unreported'),
  };
}

const ratio = (part: LedgerSum, whole: number | null): number | null => (part === null || whole === null || whole === 0 ? null : part / whole);

function share(r: Row): UsageLedgerShare {
  const subagent = sum(r.subagent_tokens, 'subagent_tokens');
  const parent = sum(r.parent_tokens, 'parent_tokens');
  const reported = sum(r.reported_total_tokens, 'reported_total_tokens');
  return {
    sessions: count(r.sessions, 'sessions'),
    runs: count(r.runs, 'runs'),
    subagent_tokens: subagent,
    subagent_unreported_rows: count(r.subagent_unreported, 'subagent_unreported'),
    parent_tokens: parent,
    parent_unreported_rows: count(r.parent_unreported, 'parent_unreported'),
    subagent_share: ratio(subagent, subagent === null || parent === null ? null : subagent + parent),
    reported_total_tokens: reported,
    reported_runs: count(r.reported_runs, 'reported_runs'),
    reported_coverage: ratio(reported, subagent),
  };
}

/** The report member, or null when no session in scope has ledger figures. */
export function composeUsageLedger(raw: RawUsageLedger | null): UsageLedgerReport | null {
  if (raw === null) return null;
  const shares = raw.shares as Row[];
  const all = shares.find((r) => r.level === 'all');
  if (!all || count(all.sessions, 'sessions') === 0) return null;
  const groups = raw.groups as Row[];
  return {
    all: share(all),
    by_subagent_type_and_model: groups
      .filter((r) => r.side === 'subagent')
      .map((r) => ({
        subagent_type: r.subagent_type === null ? null : text(r.subagent_type, 'subagent_type'),
        model: text(r.model, 'model'),
        runs: count(r.runs, 'runs'),
        ...figures(r),
      })),
    parents_by_model: groups
      .filter((r) => r.side === 'parent')
      .map((r) => ({ model: text(r.model, 'model'), sessions: count(r.runs, 'sessions'), ...figures(r) })),
    by_card: shares.filter((r) => r.level === 'card').map((r) => ({ task_id: text(r.task_id, 'task_id'), ...share(r) })),
    by_session: shares
      .filter((r) => r.level === 'session')
      .map((r) => ({ task_id: text(r.task_id, 'task_id'), task_session_id: text(r.task_session_id, 'task_session_id'), ...share(r) })),
  };
}
