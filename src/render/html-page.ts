// The report as ONE self-contained HTML page (`subagent-context report --html FILE`): inline
// CSS and inline SVG charts, no script at all, and a Content-Security-Policy that forbids
// every fetch, so the page can be mailed, archived or opened offline and shows the same.
// What it found comes first in plain words, then the charts (and the usage ledger's panel when
// the report carries one: ./html-usage-ledger.ts), then the caveats as numbered
// notes in plain words. Light and dark (prefers-color-scheme), print CSS,
// usable at 400 px. Every string from the database is made visible, clipped and isolated, and
// the page is written with markup`` (./html.ts), which escapes every value it interpolates.
import { packageVersion } from '../package-version.js';
import { describeScope, describeWindow } from './chart-data.js';
import { STATE_MEANING } from './state-meaning.js';
import { clipVisible, visible } from './display-text.js';
import { findingLines } from './finding.js';
import { formatInt, formatRatio, plural } from '../human-numbers.js';
import { markup, joinHtml, trustedHtml } from './html.js';
import { turnsIn } from '../report/derived-figures.js';
import type { SubagentContextReport } from '../report/types.js';
import type { ReportViewOptions } from './format-report.js';
import { PAGE_CSS } from './html-style.js';
import { usageLedgerPanel } from './html-usage-ledger.js';
import { cardsPanel, fanOutPanel, keyText, notesSection, provenancePanel, t, tile, tokensPanel } from './html-panels.js';

export interface ReportPageOptions extends ReportViewOptions {
  /** When the page was generated, shown in its header and footer; now by default (pass one for a reproducible page). */
  generatedAt?: Date;
}

/**
 * The report as one complete, self-contained HTML document (what `report --html FILE`
 * writes): inline CSS and SVG, no script, nothing fetched. Strings from the database are
 * escaped, made visible and clipped, so the page is safe to serve or mail as it is.
 */
export function renderReportHtml(r: SubagentContextReport, options: ReportPageOptions = {}): string {
  const generatedAt = (options.generatedAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const version = packageVersion() ?? 'unknown';
  const knownTurns = turnsIn(r.fan_out.known);
  const fannedOut = turnsIn(r.fan_out.known, 2);
  const generated = markup`Generated <time class="instant" datetime="${generatedAt}">${generatedAt}</time> by subagent-context <span class="version">${version}</span>`;
  return markup`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Subagent fan-out report</title>
<style>${trustedHtml(PAGE_CSS)}</style>
</head>
<body><main>
<header>
<h1>Subagent fan-out report</h1>
${options.where !== undefined && markup`<p class="where">${visible(options.where)}</p>\n`}<p class="generated" id="generated">${generated}</p>
<dl class="meta">
<dt>window</dt><dd>${t(describeWindow(r.window))}</dd>
<dt>scope</dt><dd>${t(clipVisible(describeScope(r.task_ids), 200))}</dd>
<dt>state</dt><dd><span class="state${r.state === 'activated' ? '' : ' warn'}">${r.state}</span> ${STATE_MEANING[r.state]}</dd>
<dt>keys</dt><dd>capture_since ${t(keyText(r.keys.capture_since))} · backfill_through ${t(keyText(r.keys.backfill_through))} · execution_since ${t(keyText(r.keys.execution_since))}</dd>
</dl>
</header>
<section class="finding" id="finding"><h2>What it found</h2>
${joinHtml(
  findingLines(r).map((l) => markup`<p>${t(l)}</p>`),
  '\n',
)}
</section>
<div class="tiles">
${tile(formatRatio(r.cards.sessions_per_card), 'sessions per card (task_sessions alone)')}
${tile(formatRatio(r.cards.contexts_per_card), 'contexts per card, subagents included')}
${tile(formatInt(r.cards.subagent_contexts), 'subagent contexts in the window')}
${tile(`${formatInt(fannedOut)} / ${formatInt(knownTurns)}`, 'turns with 2+ subagents / turns with known fan-out')}
${tile(formatInt(r.tokens.total_tokens), `tokens over ${plural(r.tokens.measured, 'measured subagent')}`)}
</div>
${fanOutPanel(r)}
${cardsPanel(r)}
${tokensPanel(r)}
${usageLedgerPanel(r)}${provenancePanel(r)}
${notesSection(r)}
<footer>${generated}. Figures follow the package's reading rules (the notes above); docs/report.md in the package says what each one counts.</footer>
</main></body>
</html>
`.text;
}
