// store.report(), dialect-neutral: checks the options, reads the keys and every report
// statement in one snapshot (the dialect's ReportReader), and composes DESIGN §9's JSON.
// Every figure is a count or sum the database returned; this file only arranges them,
// derives ratios, and decides which AC-25 caveats apply (./caveats.ts).
import type { StoreContext } from '../dialect.js';
import { classifyActivationState } from '../health/activation-state.js';
import type { StoreTable } from '../health/queries.js';
import { formatKeyInstant } from '../instant.js';
import { boundariesFromKeys } from './boundaries.js';
import { reportCaveats } from './caveats.js';
import { asReportError, reportError } from './errors.js';
import { checkReportOptions } from './options.js';
import type { FanOutRow, RawReport, ReportReader, TokenBucketRow, TokenGroupRow } from './queries.js';
import type { FanOutBucket, ReportOptions, SubagentContextReport, TokenBucket, TokenFigures, TokenGroup } from './types.js';
import { composeUsageLedger } from './usage-ledger.js';

const REPORT_TABLES: readonly StoreTable[] = ['kandev_meta', 'task_session_subagents', 'task_sessions', 'task_session_messages'];

function figures(rows: number, settled: number, measured: number, totalTokens: number): TokenFigures {
  return { rows, settled, measured, unmeasured: settled - measured, total_tokens: totalTokens, mean_tokens: measured > 0 ? totalTokens / measured : null };
}

/** Most rows first; ties by value, with "not reported" (null) last. */
function byRows(a: { rows: number; key: string | null }, b: { rows: number; key: string | null }): number {
  if (a.rows !== b.rows) return b.rows - a.rows;
  if (a.key === b.key) return 0;
  if (a.key === null) return 1;
  if (b.key === null) return -1;
  return a.key < b.key ? -1 : 1;
}

function tokenGroups<K extends TokenGroupRow['dimension']>(rows: TokenGroupRow[], dimension: K): TokenGroup<K>[] {
  return rows
    .filter((r) => r.dimension === dimension)
    .map((r) => ({ key: r.value, rows: r.rows, group: { [dimension]: r.value, ...figures(r.rows, r.settled, r.measured, r.totalTokens) } as TokenGroup<K> }))
    .sort(byRows)
    .map((r) => r.group);
}

const NEXT_LEAD: Record<TokenBucketRow['lead'], number> = { 1: 2, 2: 5, 5: 10 };

/** 1-2-5 buckets, contiguous from the smallest to the largest non-empty one (gaps as 0). */
function tokenBuckets(rows: TokenBucketRow[]): TokenBucket[] {
  if (rows.length === 0) return [];
  const index = (r: { digits: number; lead: TokenBucketRow['lead'] }) => r.digits * 3 + [1, 2, 5].indexOf(r.lead);
  const counts = new Map(rows.map((r) => [index(r), r.subagents]));
  const first = Math.min(...counts.keys());
  const last = Math.max(...counts.keys());
  const out: TokenBucket[] = [];
  for (let i = first; i <= last; i++) {
    const digits = Math.floor(i / 3);
    const lead = ([1, 2, 5] as const)[i % 3];
    const decade = 10 ** (digits - 1);
    out.push({ from: lead * decade, to: NEXT_LEAD[lead] * decade, subagents: counts.get(i) ?? 0 });
  }
  return out;
}

function histogram(rows: FanOutRow[], era: FanOutRow['era']): FanOutBucket[] {
  return rows
    .filter((r) => r.era === era)
    .map((r) => ({ subagents: r.subagents, turns: r.turns }))
    .sort((a, b) => a.subagents - b.subagents);
}

export function composeReport(raw: RawReport): SubagentContextReport {
  const { keys, bounds, rowCounts: c, cards } = raw;
  const state = classifyActivationState(keys);
  const bySource = tokenGroups(raw.tokens, 'source');
  const sum = (f: (g: TokenFigures) => number) => bySource.reduce((t, g) => t + f(g), 0);
  const totals = figures(
    sum((g) => g.rows),
    sum((g) => g.settled),
    sum((g) => g.measured),
    sum((g) => g.total_tokens),
  );
  const inWindow = raw.fanOut.filter((r) => r.era !== 'before_since');

  const provenance: SubagentContextReport['provenance'] = {
    rows: c.rows,
    live: c.live,
    backfill: c.backfill,
    live_before_capture_since: bounds.captureSinceNs === null ? null : c.liveBeforeCaptureSince,
    shadowed_backfill_rows: c.shadowedBackfillRows,
  };
  // A shadowed backfilled row is the same invocation as a live row (AC-22): one context.
  const contexts = c.rows - c.shadowedBackfillRows;
  const fanOut: SubagentContextReport['fan_out'] = {
    known_from: bounds.knownFromNs === null ? null : formatKeyInstant(bounds.knownFromNs),
    known_from_key: bounds.knownFromKey,
    known: histogram(raw.fanOut, 'known'),
    unknown: histogram(raw.fanOut, 'unknown'),
    rows_without_turn: c.rowsWithoutTurn,
    turns_past_until: inWindow.reduce((t, r) => t + r.pastUntil, 0),
    turns_before_since: raw.fanOut.filter((r) => r.era === 'before_since').reduce((t, r) => t + r.turns, 0),
  };
  const tokens: SubagentContextReport['tokens'] = {
    ...totals,
    outstanding: totals.rows - totals.settled,
    by_source: bySource,
    by_subagent_type: tokenGroups(raw.tokens, 'subagent_type'),
    by_model: tokenGroups(raw.tokens, 'model'),
    distribution: tokenBuckets(raw.distribution),
  };
  // AC-24b: without execution_since no agent_execution_id is an execution identity, so
  // there is no execution count to give; the 'unknown' rows are still counted.
  const executionDimension = keys.execution_since !== null;
  const executions: SubagentContextReport['executions'] = {
    distinct: executionDimension ? c.distinctExecutions : null,
    identified_rows: c.identifiedRows,
    unknown_rows: c.unknownRows,
    unknown_backfill_rows: c.unknownBackfillRows,
    unknown_live_rows_since_execution_since: bounds.executionSinceNs === null ? null : c.unknownLiveRowsSinceExecutionSince,
  };
  const usageLedger = composeUsageLedger(raw.usageLedger);
  return {
    window: {
      since: bounds.sinceNs === null ? null : formatKeyInstant(bounds.sinceNs),
      until: bounds.untilNs === null ? null : formatKeyInstant(bounds.untilNs),
    },
    task_ids: bounds.taskIds,
    state,
    keys,
    caveats: reportCaveats({ state, keys, bounds, provenance, fanOut, tokens, executions }),
    provenance,
    fan_out: fanOut,
    cards: {
      tasks: cards.tasks,
      sessions: cards.sessions,
      subagent_contexts: contexts,
      tasks_with_subagents: cards.tasksWithSubagents,
      sessions_with_subagents: cards.sessionsWithSubagents,
      sessions_per_card: cards.tasks > 0 ? cards.sessions / cards.tasks : null,
      contexts_per_card: cards.tasks > 0 ? (cards.sessions + contexts) / cards.tasks : null,
    },
    tokens,
    executions,
    ...(usageLedger && { usage_ledger: usageLedger }),
  };
}

/** Rejects only with a coded SubagentContextError (./errors.ts): a driver's failure is database_error with it on `cause`. */
export async function buildReport(reader: ReportReader, ctx: StoreContext, options: ReportOptions | undefined): Promise<SubagentContextReport> {
  const request = checkReportOptions(options);
  try {
    const present = await reader.probeTables();
    const missing = REPORT_TABLES.filter((t) => !present[t]);
    if (missing.length) {
      throw reportError(
        'missing_tables',
        `report: missing table${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (run \`subagent-context migrate\` on the ${ctx.dialect} store)`,
      );
    }
    const raw = await reader.read((keys) => ({ ...request, ...boundariesFromKeys(keys) }));
    return composeReport(raw);
  } catch (err) {
    throw asReportError(err);
  }
}
