// The report's public shape (DESIGN §9): what store.report() returns and `subagent-context
// report --json` prints. Field names are snake_case like the rest of the package's JSON.
// docs/report.md says what each figure counts and which window it applies to.
import type { ActivationKeyValues, ActivationState } from '../activation-keys.js';
import type { UsageLedgerReport } from './usage-ledger.js';

export interface ReportOptions {
  /** RFC3339 instant: only rows observed at or after it count. Absent: no lower bound. */
  since?: string;
  /** RFC3339 instant: only rows observed before it count. Absent: no upper bound. */
  until?: string;
  /**
   * Scope every figure to these tasks (through each session's task, spec § Permissions).
   * Absent: every task. An empty array scopes to no task, so every figure is 0.
   */
  taskIds?: string[];
}

/** Turns that spawned exactly `subagents` subagent rows. */
export interface FanOutBucket {
  subagents: number;
  turns: number;
}

/** Token figures of one group of rows (a source, a subagent_type, a model, or all). */
export interface TokenFigures {
  /** Rows in the window. */
  rows: number;
  /** Rows whose launching tool call reached a terminal status (AC-11). */
  settled: number;
  /** Settled rows that reported total_tokens: a stored value above 0 (AC-7a, AC-9). */
  measured: number;
  /** Settled rows with total_tokens NULL (or a stored 0 or negative): not reported, never counted as 0 (AC-7). */
  unmeasured: number;
  /** Sum of total_tokens over the measured rows (exact below 2^53). */
  total_tokens: number;
  /** total_tokens / measured, or null when nothing was measured. */
  mean_tokens: number | null;
}

/** One group's figures under its value, e.g. { subagent_type: 'reviewer', ... }; null = not reported. */
export type TokenGroup<K extends string> = { [P in K]: string | null } & TokenFigures;

/** Settled, measured subagents whose total_tokens lies in [from, to). */
export interface TokenBucket {
  from: number;
  to: number;
  subagents: number;
}

export interface SubagentContextReport {
  window: { since: string | null; until: string | null };
  /** The tasks the report is scoped to, or null for every task. */
  task_ids: string[] | null;
  /** AC-24c, read from the keys alone (never from rows). */
  state: ActivationState;
  /** The three activation keys verbatim, null when absent (as HealthReport.keys). */
  keys: ActivationKeyValues;
  /** The AC-25 rules that apply to this store and window, as sentences. */
  caveats: string[];
  provenance: {
    rows: number;
    live: number;
    backfill: number;
    /** Live rows observed before capture_since: counted (AC-25 revision 2); null when the key is absent. */
    live_before_capture_since: number | null;
    /**
     * Backfilled rows that record the same invocation as a row from another source (the same
     * task_session_id and tool_call_id, AC-22): left out of fan_out, tokens and
     * cards.subagent_contexts, so the invocation counts once. Counted in rows, backfill and executions.
     */
    shadowed_backfill_rows: number;
  };
  fan_out: {
    /** The instant from which fan-out is known, or null when no boundary may be published. */
    known_from: string | null;
    /** Which key supplied known_from. */
    known_from_key: 'backfill_through' | 'capture_since' | null;
    /** Turns whose first subagent row is at or after known_from. */
    known: FanOutBucket[];
    /** Turns that began before known_from (or all, without one): lower bounds, never zeros. */
    unknown: FanOutBucket[];
    /** Rows in the window without a turn_id (shadowed backfilled rows aside), in neither histogram. */
    rows_without_turn: number;
    /** Turns counted here whose rows continue at or after `until` (counted whole). */
    turns_past_until: number;
    /** Turns with rows in the window that began before `since` (counted in the earlier window). */
    turns_before_since: number;
  };
  cards: {
    /** Cards (tasks) with a session active in the window. */
    tasks: number;
    /** Sessions active in the window: a message created or a subagent row observed in it. */
    sessions: number;
    /** Subagent rows observed in the window, less shadowed_backfill_rows: the contexts task_sessions does not show. */
    subagent_contexts: number;
    tasks_with_subagents: number;
    sessions_with_subagents: number;
    /** sessions / tasks, or null without tasks. */
    sessions_per_card: number | null;
    /** (sessions + subagent_contexts) / tasks, or null without tasks. */
    contexts_per_card: number | null;
  };
  tokens: TokenFigures & {
    /** Rows not settled yet: outside the token figures. */
    outstanding: number;
    by_source: TokenGroup<'source'>[];
    by_subagent_type: TokenGroup<'subagent_type'>[];
    by_model: TokenGroup<'model'>[];
    distribution: TokenBucket[];
  };
  executions: {
    /** Distinct agent_execution_id excluding 'unknown'; null when execution_since is absent (AC-24b). */
    distinct: number | null;
    /** Rows carrying a real execution id. */
    identified_rows: number;
    /** Rows carrying the 'unknown' sentinel: unrecorded, never one shared execution (AC-31). */
    unknown_rows: number;
    /** Of those, backfilled rows (unknown by construction). */
    unknown_backfill_rows: number;
    /** Of those, live rows observed at or after execution_since (AC-31); null when the key is absent. */
    unknown_live_rows_since_execution_since: number | null;
  };
  /**
   * The usage ledger (imported transcripts, or a live intake that reports usage) for the same
   * scope: every response's tokens per subagent type and model, and the subagents' share of
   * each session's and card's tokens beside the reported total_tokens. Absent when no session
   * in scope has ledger figures.
   */
  usage_ledger?: UsageLedgerReport;
}
