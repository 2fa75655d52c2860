// The usage ledger's finding in plain words, which both views (the terminal's section and the
// page's panel) lead with: the subagents' share of the tokens in scope, then how much of the
// subagents' usage the spec's reported total_tokens shows. Only restates the report's
// `usage_ledger` figures; a figure the ledger does not know (null) is said to be unknown, never 0.
import { formatInt, plural } from '../human-numbers.js';
import type { UsageLedgerReport, UsageLedgerShare } from '../report/usage-ledger.js';

/** 0.7234 -> "72.3%". */
export const formatShare = (n: number | null) => (n === null ? '—' : `${(100 * n).toFixed(1)}%`);

/** "this card's" for one card, "these 3 cards'" for several. */
function whose(cards: number): string {
  return cards === 1 ? "this card's" : `these ${formatInt(cards)} cards'`;
}

/** What total_tokens shows of the subagents' usage, as a clause. */
export function coverageClause(s: UsageLedgerShare): string {
  if (s.runs === 0) return 'no subagent ran';
  if (s.reported_total_tokens === null) return `none of the ${plural(s.runs, 'run')} reported total_tokens`;
  const over = `${formatInt(s.reported_total_tokens)} over ${formatInt(s.reported_runs)} of ${plural(s.runs, 'run')}`;
  if (s.reported_coverage === null) return `the reported total_tokens is ${over}`;
  return `the reported total_tokens covers ${s.reported_coverage < 1 ? 'only ' : ''}${formatShare(s.reported_coverage)} of it (${over})`;
}

/** One or two sentences, the share first. */
export function usageLedgerFinding(ledger: UsageLedgerReport): string {
  const a = ledger.all;
  const sub = a.subagent_tokens;
  const parent = a.parent_tokens;
  let head: string;
  if (sub === null) head = `The subagents' usage is unknown: their runs reported no token figure`;
  else if (parent === null) {
    const without = ledger.by_session.filter((s) => s.parent_tokens === null).length;
    head = `Subagents used ${formatInt(sub)} tokens over ${plural(a.runs, 'run')}; their share is unknown: ${plural(without, 'session')} without the parent's own usage in the ledger`;
  } else if (a.subagent_share === null) head = `No tokens are in the ledger for ${whose(ledger.by_card.length)} ${plural(a.sessions, 'session')}`;
  else
    head = `Subagents used ${formatShare(a.subagent_share)} of ${whose(ledger.by_card.length)} ${formatInt(sub + parent)} tokens (${formatInt(sub)} over ${plural(a.runs, 'run')}; the parents' own: ${formatInt(parent)})`;
  const lower = a.subagent_unreported_rows + a.parent_unreported_rows;
  const tail = lower ? ` Lower bounds: ${plural(lower, 'ledger row')} miss${lower === 1 ? 'es' : ''} a figure (not counted as 0).` : '';
  return `${head}; ${coverageClause(a)}.${tail}`;
}
