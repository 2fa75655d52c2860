// The page's usage-ledger panel (./html-page.ts places it after the tokens), when the report
// carries a `usage_ledger`: the finding first (./usage-ledger-finding.ts, the same sentence the
// terminal prints), then three tables: tokens per subagent type and model summed over every
// run (the parents' own per model below them), and the subagents' share of each card's and
// session's tokens beside the spec's reported total_tokens. Written with markup`` (every value
// escaped); each string from the database passes through t() and is clipped; a figure the
// ledger does not know is shown as "unknown", never 0.
import { formatInt, plural } from '../human-numbers.js';
import type { UsageLedgerFigures, UsageLedgerReport, UsageLedgerShare } from '../report/usage-ledger.js';
import type { SubagentContextReport } from '../report/types.js';
import { GROUP_LIMIT } from './chart-data.js';
import { clipVisible } from './display-text.js';
import { markup, type Html } from './html.js';
import { t } from './html-panels.js';
import { formatShare, usageLedgerFinding } from './usage-ledger-finding.js';

const n = (value: number | null) => (value === null ? markup`<span class="unknown">unknown</span>` : formatInt(value));
const label = (text: string) => markup`<bdi title="${clipVisible(text, 160)}">${t(clipVisible(text, 48))}</bdi>`;

function figureCells(f: UsageLedgerFigures): Html {
  return markup`<td>${n(f.requests)}</td><td>${n(f.input_tokens)}</td><td>${n(f.output_tokens)}</td><td>${n(f.cache_read_input_tokens)}</td><td>${n(f.cache_creation_input_tokens)}</td><td><b>${n(f.tokens)}</b></td><td>${formatInt(f.unreported_rows)}</td>`;
}

function byTypeTable(l: UsageLedgerReport): Html {
  const rows = l.by_subagent_type_and_model.map(
    (g) =>
      markup`<tr class="subagent"><td>${label(g.subagent_type ?? '(type not reported)')}</td><td class="text">${label(g.model)}</td><td>${formatInt(g.runs)}</td>${figureCells(g)}</tr>`,
  );
  const parents = l.parents_by_model.map(
    (p) =>
      markup`<tr class="parent"><td><i>parents' own</i></td><td class="text">${label(p.model)}</td><td>${plural(p.sessions, 'session')}</td>${figureCells(p)}</tr>`,
  );
  return markup`<div class="table-wrap"><table id="usage-ledger-by-type"><thead><tr><th>subagent type</th><th class="text">model</th><th>runs</th><th>requests</th><th>input</th><th>output</th><th>cache read</th><th>cache creation</th><th>tokens</th><th>rows missing a figure</th></tr></thead>
<tbody>${rows}${parents}</tbody></table></div>`;
}

function shareCells(s: UsageLedgerShare): Html {
  const total = s.subagent_tokens === null || s.parent_tokens === null ? null : s.subagent_tokens + s.parent_tokens;
  return markup`<td>${formatInt(s.runs)}</td><td>${n(s.subagent_tokens)}</td><td>${n(s.parent_tokens)}</td><td>${n(total)}</td><td><b>${formatShare(s.subagent_share)}</b></td><td>${n(s.reported_total_tokens)}</td><td>${formatInt(s.reported_runs)}</td><td>${formatShare(s.reported_coverage)}</td>`;
}

/** `ids`: the first column holds session ids, kept on one line (and a session's count of sessions, 1, is left out). */
function shareTable(id: string, first: string, rows: { label: string; share: UsageLedgerShare }[], more: string, ids = false): Html {
  const shown = rows
    .slice(0, GROUP_LIMIT)
    .map(
      (r) =>
        markup`<tr><td class="${ids ? 'id' : ''}">${label(r.label)}</td>${!ids && markup`<td>${formatInt(r.share.sessions)}</td>`}${shareCells(r.share)}</tr>`,
    );
  const rest = rows.length > GROUP_LIMIT && markup`<tr><td colspan="${ids ? 9 : 10}">… and ${plural(rows.length - GROUP_LIMIT, more)} (in the JSON)</td></tr>`;
  return markup`<div class="table-wrap"><table id="${id}"><thead><tr><th>${first}</th>${!ids && markup`<th>sessions</th>`}<th>runs</th><th>subagents' tokens</th><th>parents' tokens</th><th>all tokens</th><th>subagents' share</th><th>reported total_tokens</th><th>runs reporting it</th><th>total_tokens covers</th></tr></thead>
<tbody>${shown}${rest}</tbody></table></div>`;
}

/** The panel and a line break, or nothing when the report carries no ledger (the page's bytes stay as they were). */
export function usageLedgerPanel(r: SubagentContextReport): Html | false {
  const l = r.usage_ledger;
  if (!l) return false;
  return markup`<section class="panel" id="usage-ledger"><h2>Usage ledger: every response of every subagent run</h2>
<p class="ledger-finding" id="usage-ledger-finding">${t(usageLedgerFinding(l))}</p>
<p class="lead">The spec's total_tokens holds one figure a subagent reported (Claude Code's: its last response); the ledger sums every distinct response of the run, per model, from the subagents' own transcripts (or a live intake that reports usage), and the parents' own usage from the main transcripts. A figure no response reported is <b>unknown</b>, never 0; a row missing one makes its sum a lower bound. Cards and sessions beyond the ${GROUP_LIMIT} with most subagent tokens are in the JSON.</p>
${byTypeTable(l)}
${shareTable(
  'usage-ledger-by-card',
  'card (task)',
  l.by_card.map((c) => ({ label: c.task_id, share: c })),
  'other card',
)}
${shareTable(
  'usage-ledger-by-session',
  'session',
  l.by_session.map((s) => ({ label: s.task_session_id, share: s })),
  'other session',
  true,
)}</section>
`;
}
