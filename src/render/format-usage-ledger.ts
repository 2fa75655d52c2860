// The report's usage-ledger section (text), after the executions when the report carries a
// `usage_ledger`: the finding first (./usage-ledger-finding.ts), then tokens per subagent type
// and model summed over every run (the figure the spec's total_tokens, one reported response,
// cannot give), then the subagents' share of each card's and session's tokens beside the
// reported total_tokens. Strings from the database are made visible by formatReport's caller.
import { formatInt, plural } from '../human-numbers.js';
import type { UsageLedgerReport, UsageLedgerShare } from '../report/usage-ledger.js';
import { GROUP_LIMIT } from './chart-data.js';
import { clipVisible, displayWidth } from './display-text.js';
import { formatShare, usageLedgerFinding } from './usage-ledger-finding.js';

/** `shown` (already made visible and clipped) padded on the right to `width` columns. */
const padEndVisible = (shown: string, width: number) => shown + ' '.repeat(Math.max(0, width - displayWidth(shown)));
const tokens = (n: number | null) => (n === null ? 'unknown' : formatInt(n));
const missing = (rows: number) => (rows ? ` · ${plural(rows, 'row')} missing a figure (a lower bound)` : '');

function shareLine(label: string, width: number, s: UsageLedgerShare): string {
  const total = s.subagent_tokens === null || s.parent_tokens === null ? 'unknown' : formatInt(s.subagent_tokens + s.parent_tokens);
  return `    ${padEndVisible(label, width)}  ${formatShare(s.subagent_share).padStart(6)} of ${total} · subagents ${tokens(s.subagent_tokens)} over ${plural(s.runs, 'run')} · total_tokens covers ${formatShare(s.reported_coverage)}${missing(s.subagent_unreported_rows + s.parent_unreported_rows)}`;
}

function shareBlock(title: string, rows: { label: string; share: UsageLedgerShare }[], more: string): string[] {
  const shown = rows.slice(0, GROUP_LIMIT).map((r) => ({ ...r, label: clipVisible(r.label, 60) }));
  const width = Math.max(0, ...shown.map((r) => displayWidth(r.label)));
  const rest = rows.length > GROUP_LIMIT ? [`    … and ${plural(rows.length - GROUP_LIMIT, more)} (every one in --json)`] : [];
  return [title, ...shown.map((r) => shareLine(r.label, width, r.share)), ...rest];
}

export function usageLedgerSection(ledger: UsageLedgerReport): string[] {
  const groups = ledger.by_subagent_type_and_model.map((g) => ({ ...g, label: clipVisible(`${g.subagent_type ?? '(type not reported)'} · ${g.model}`, 60) }));
  const width = Math.max(0, ...groups.map((g) => displayWidth(g.label)));
  return [
    'Usage ledger: every response of every subagent run, per model (NULL figures are not 0)',
    `  ${usageLedgerFinding(ledger)}`,
    '  by subagent type and model',
    ...groups.map(
      (g) =>
        `    ${padEndVisible(g.label, width)}  ${tokens(g.tokens).padStart(12)} tokens · ${plural(g.runs, 'run')} · ${g.requests === null ? 'requests not reported' : plural(g.requests, 'request')}${missing(g.unreported_rows)}`,
    ),
    ...(groups.length ? [] : ['    (no subagent run in the ledger)']),
    ...ledger.parents_by_model.map(
      (p) => `    (parents) · ${clipVisible(p.model, 40)}  ${tokens(p.tokens)} tokens · ${plural(p.sessions, 'session')}${missing(p.unreported_rows)}`,
    ),
    ...shareBlock(
      "  by card: the subagents' share of its tokens",
      ledger.by_card.map((c) => ({ label: c.task_id, share: c })),
      'other card',
    ),
    ...shareBlock(
      "  by session: the subagents' share of its tokens",
      ledger.by_session.map((s) => ({ label: s.task_session_id, share: s })),
      'other session',
    ),
  ];
}
