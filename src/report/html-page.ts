// The report as ONE self-contained HTML page (`subagent-context report --html FILE`): inline
// CSS and inline SVG charts, no script at all, and a Content-Security-Policy that forbids
// every fetch, so the page can be mailed, archived or opened offline and shows the same.
// What it found comes first in plain words, then the charts, then the caveats as numbered
// notes with the criteria as references. Light and dark (prefers-color-scheme), print CSS,
// usable at 400 px. Every string from the database is made visible, clipped and isolated.
import {
  type Bar,
  describeScope,
  describeWindow,
  fanOutBars,
  formatInt,
  formatRatio,
  GROUP_LIMIT,
  maxOf,
  plural,
  STATE_MEANING,
  tokenDistributionBars,
  tokenGroupBars,
} from './chart-data.js';
import { clipVisible, visible } from './display-text.js';
import { findingLines } from './finding.js';
import { caveatNote } from './notes.js';
import { packageVersion } from './package-version.js';
import { escapeHtml as e, horizontalBarChart, keepInstants, shownLabel, verticalBarChart } from './svg-chart.js';
import type { SubagentContextReport } from './types.js';

const COLOR = { known: '#0f766e', unknown: '#c2410c', tokens: '#4338ca', live: '#0f766e', backfill: '#9a3412', cards: '#475569' };

// Light by default; dark under prefers-color-scheme: dark; light and flat on paper. Narrow
// screens (down to 400 px) get one column, and nothing forces the page wider than the screen:
// charts scale down, tables scroll inside their own box, instants never break mid-number.
const CSS = `
:root { color-scheme: light dark; --bg: #f4f5f7; --fg: #1f2933; --panel: #fff; --muted: #52606d; --faint: #7b8794; --line: #e4e7eb; --axis: #9aa5b1;
  --note-bg: #f8fafc; --note-border: #cbd2d9; --state-bg: #e0f2f1; --state-fg: #0f5f58; --warn-bg: #fdecd8; --warn-fg: #8a3b0a; --hatch: #9aa5b1; --finding-bg: #eef2ff; --finding-border: #6366f1; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111827; --fg: #e5e7eb; --panel: #1f2937; --muted: #a5b1c2; --faint: #8b98a9; --line: #374151; --axis: #6b7280;
    --note-bg: #182130; --note-border: #4b5563; --state-bg: #134e4a; --state-fg: #99f6e4; --warn-bg: #4a2508; --warn-fg: #fed7aa; --hatch: #8b98a9; --finding-bg: #1e1b4b; --finding-border: #818cf8; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
header h1 { margin: 0 0 4px; font-size: 26px; letter-spacing: -0.01em; }
header .where { color: var(--muted); margin: 0 0 4px; overflow-wrap: anywhere; }
header .generated { color: var(--faint); margin: 0 0 12px; font-size: 13px; }
.instant, .value, td { white-space: nowrap; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px; margin: 0; font-size: 14px; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.state { display: inline-block; padding: 1px 8px; border-radius: 999px; font-weight: 600; font-size: 13px; background: var(--state-bg); color: var(--state-fg); }
.state.warn { background: var(--warn-bg); color: var(--warn-fg); }
section.finding { margin: 22px 0 8px; padding: 14px 20px; background: var(--finding-bg); border-left: 6px solid var(--finding-border); border-radius: 8px; }
section.finding h2 { margin: 0 0 6px; font-size: 19px; }
section.finding p { margin: 4px 0; font-size: 16px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(160px, 100%), 1fr)); gap: 14px; margin: 18px 0; }
.tile { background: var(--panel); border-radius: 10px; padding: 14px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.06), 0 0 0 1px rgba(0,0,0,.04); }
.tile .n { font-size: 28px; font-weight: 700; letter-spacing: -0.02em; }
.tile .l { color: var(--muted); font-size: 13px; }
section.panel { background: var(--panel); border-radius: 12px; padding: 18px 20px 10px; margin: 18px 0; box-shadow: 0 1px 2px rgba(0,0,0,.06), 0 0 0 1px rgba(0,0,0,.04); }
section.panel h2 { margin: 0 0 4px; font-size: 19px; }
section.panel > p.lead { margin: 0 0 12px; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(520px, 100%), 1fr)); gap: 8px 24px; }
figure.chart { margin: 8px 0 14px; }
.charts > * { min-width: 0; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figure.chart p.empty { color: var(--faint); font-style: italic; padding: 24px 0; margin: 0; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .axis { stroke: var(--axis); stroke-width: 1; }
svg .tick { fill: var(--muted); font-size: 12px; }
svg .value { fill: var(--fg); font-size: 12px; font-weight: 600; }
svg .axis-title { fill: var(--muted); font-size: 12.5px; font-weight: 600; }
svg text { unicode-bidi: isolate; }
svg rect.unmeasured { fill: var(--panel); stroke: var(--hatch); stroke-width: 1; }
svg .hatch-line { fill: none; stroke: var(--hatch); stroke-width: 1.2; pointer-events: none; }
ul.notes { list-style: none; padding: 0; margin: 4px 0 0; font-size: 12.5px; color: var(--muted); }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: 14px; margin: 6px 0 14px; }
th, td { text-align: right; padding: 5px 10px; border-bottom: 1px solid var(--line); }
th:first-child, td:first-child { text-align: left; white-space: normal; }
th { color: var(--muted); font-weight: 600; }
p.legend-row { margin: 0 0 4px; }
.legend { display: inline-flex; align-items: center; gap: 6px; margin-right: 16px; font-size: 13px; color: var(--muted); }
.swatch { width: 12px; height: 12px; border-radius: 3px; display: inline-block; flex: none; }
.swatch.known { background: ${COLOR.known}; }
.swatch.unknown { background: ${COLOR.unknown}; }
.swatch.tokens { background: ${COLOR.tokens}; }
.swatch.unmeasured { background: repeating-linear-gradient(45deg, var(--hatch) 0 3px, var(--panel) 3px 6px); border: 1px solid var(--hatch); }
section.notes { margin: 22px 0; padding: 14px 20px; background: var(--note-bg); border: 1px solid var(--note-border); border-radius: 8px; }
section.notes h2 { margin: 0 0 8px; font-size: 17px; }
section.notes ol { margin: 0; padding-left: 24px; }
section.notes li { margin: 4px 0; }
section.notes .refs { color: var(--faint); font-size: 12.5px; white-space: nowrap; }
section.notes p.about { color: var(--faint); font-size: 12.5px; margin: 8px 0 0; }
bdi { unicode-bidi: isolate; }
footer { color: var(--faint); font-size: 12.5px; margin-top: 28px; }
@media (max-width: 600px) {
  main { padding: 16px 12px 32px; }
  header h1 { font-size: 22px; }
  section.panel, section.finding, section.notes { padding-left: 12px; padding-right: 12px; }
}
@media print {
  :root { color-scheme: light; --bg: #fff; --fg: #000; --panel: #fff; --muted: #333; --faint: #555; --line: #ccc; --axis: #666;
    --note-bg: #fff; --note-border: #999; --state-bg: #fff; --state-fg: #000; --warn-bg: #fff; --warn-fg: #000; --hatch: #777; --finding-bg: #fff; --finding-border: #000; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  section.panel, .tile { box-shadow: none; border: 1px solid #ccc; }
  section.panel, figure.chart, .tiles, section.finding { break-inside: avoid; }
  .charts { grid-template-columns: 1fr; }
  .state { border: 1px solid #000; }
}
`;

/** Text from the report (possibly quoting the database) as page HTML: visible, escaped, instants unbroken. */
const t = (text: string) => keepInstants(e(visible(text)));

const tile = (n: string, label: string) => `<div class="tile"><div class="n">${e(n)}</div><div class="l">${e(label)}</div></div>`;

function keyText(value: string | null): string {
  return value === null ? 'absent' : value === '' ? "'' (sentinel: there was no history to backfill)" : clipVisible(value, 64);
}

function fanOutPanel(r: SubagentContextReport): string {
  const f = r.fan_out;
  // One scale for both eras: the same subagents-per-turn axis and the same turns axis.
  const through = maxOf([...f.known, ...f.unknown].map((b) => b.subagents));
  const scaleMax = maxOf([...f.known, ...f.unknown].map((b) => b.turns));
  const known = verticalBarChart({
    id: 'fan-out-known',
    title: f.known_from === null ? 'Known fan-out: no boundary may be published' : `Known fan-out (first subagent at or after ${f.known_from})`,
    xLabel: 'subagents in the turn',
    yLabel: 'turns',
    bars:
      f.known_from === null
        ? []
        : fanOutBars(
            f.known,
            through,
            f.unknown.map((b) => b.subagents),
          ),
    fill: COLOR.known,
    format: formatInt,
    empty: f.known_from === null ? 'No fan-out is known on this store (see the notes below).' : 'No turn with subagents in this era.',
    scaleMax,
  });
  const unknown = verticalBarChart({
    id: 'fan-out-unknown',
    title:
      f.known_from === null
        ? 'Unknown fan-out (no boundary: every count is a lower bound)'
        : 'Unknown fan-out (turns that began before the boundary: lower bounds)',
    xLabel: 'subagent rows in the turn (at least)',
    yLabel: 'turns',
    bars: fanOutBars(
      f.unknown,
      through,
      f.known.map((b) => b.subagents),
    ),
    fill: COLOR.unknown,
    format: formatInt,
    empty: 'No turn with subagents in this era.',
    scaleMax,
  });
  const legend = `<p class="legend-row" id="fan-out-legend"><span class="legend"><span class="swatch known"></span>known fan-out: a complete count per turn</span><span class="legend"><span class="swatch unknown"></span>unknown fan-out: recovered from history, at least this many</span><span class="legend">both charts share one scale</span></p>`;
  return `<section class="panel" id="fan-out"><h2>Fan-out: subagents per turn</h2>
<p class="lead">Each bar counts the turns that spawned exactly that many subagents. Turns are counted whole, in the window where their first subagent was observed. ${e(plural(f.rows_without_turn, 'row'))} without a turn, ${e(plural(f.turns_past_until, 'turn'))} continuing past <i>until</i>, ${e(plural(f.turns_before_since, 'turn'))} begun before <i>since</i>.</p>
${legend}
<div class="charts">${known}${unknown}</div></section>`;
}

function cardsPanel(r: SubagentContextReport): string {
  const c = r.cards;
  const chart = horizontalBarChart({
    id: 'cards',
    title: 'Contexts per card',
    xLabel: 'per card (task) active in the window',
    yLabel: '',
    bars: [
      { label: 'sessions per card', value: c.sessions_per_card ?? 0 },
      { label: 'contexts per card', value: c.contexts_per_card ?? 0 },
    ],
    fill: COLOR.cards,
    format: formatRatio,
    empty: 'No card was active in the window.',
  });
  return `<section class="panel" id="cards"><h2>Cards: the "sessions per card" correction</h2>
<p class="lead">task_sessions alone counts one context per session; every subagent is a further context the card's work ran in. ${e(plural(c.tasks, 'card'))}, ${e(plural(c.sessions, 'session'))} and ${e(plural(c.subagent_contexts, 'subagent context'))} in the window; ${e(formatInt(c.tasks_with_subagents))} of the cards fanned out.</p>
${chart}</section>`;
}

function tokenTable(r: SubagentContextReport): string {
  const rows = r.tokens.by_source
    .slice(0, GROUP_LIMIT)
    .map(
      (g) =>
        `<tr><td><bdi>${shownLabel(g.source ?? '(none)', 40)}</bdi></td><td>${formatInt(g.rows)}</td><td>${formatInt(g.settled)}</td><td>${formatInt(g.measured)}</td><td>${formatInt(g.unmeasured)}</td><td>${formatInt(g.total_tokens)}</td><td>${g.mean_tokens === null ? '—' : formatInt(Math.round(g.mean_tokens))}</td></tr>`,
    )
    .join('');
  const more =
    r.tokens.by_source.length > GROUP_LIMIT
      ? `<tr><td colspan="7">… and ${e(plural(r.tokens.by_source.length - GROUP_LIMIT, 'other source'))} (in the JSON)</td></tr>`
      : '';
  const t = r.tokens;
  return `<div class="table-wrap"><table><thead><tr><th>source</th><th>rows</th><th>settled</th><th>measured</th><th>unmeasured (NULL)</th><th>total tokens</th><th>mean per measured</th></tr></thead>
<tbody>${rows}${more}<tr><td><b>all</b></td><td><b>${formatInt(t.rows)}</b></td><td><b>${formatInt(t.settled)}</b></td><td><b>${formatInt(t.measured)}</b></td><td><b>${formatInt(t.unmeasured)}</b></td><td><b>${formatInt(t.total_tokens)}</b></td><td><b>${t.mean_tokens === null ? '—' : formatInt(Math.round(t.mean_tokens))}</b></td></tr></tbody></table></div>`;
}

function tokensPanel(r: SubagentContextReport): string {
  const groupChart = (id: string, title: string, bars: Bar[]) =>
    horizontalBarChart({
      id,
      title,
      xLabel: 'total_tokens of measured subagents; the strip: settled subagents',
      yLabel: '',
      bars,
      fill: COLOR.tokens,
      format: formatInt,
      empty: 'No subagent settled in the window.',
    });
  const distribution = verticalBarChart({
    id: 'token-distribution',
    title: 'Distribution of total_tokens per measured subagent',
    xLabel: 'total_tokens of one subagent',
    yLabel: 'subagents',
    bars: tokenDistributionBars(r),
    fill: COLOR.tokens,
    format: formatInt,
    empty: 'No settled subagent reported its token usage.',
  });
  const byType = groupChart(
    'tokens-by-subagent-type',
    'Total tokens by subagent_type',
    tokenGroupBars(r.tokens.by_subagent_type, 'subagent_type', '(not reported)'),
  );
  const byModel = groupChart('tokens-by-model', 'Total tokens by model', tokenGroupBars(r.tokens.by_model, 'model', '(not reported)'));
  const legend = `<p class="legend-row" id="tokens-legend"><span class="legend"><span class="swatch tokens"></span>measured: reported total_tokens</span><span class="legend"><span class="swatch unmeasured"></span>unmeasured: total_tokens NULL, its usage unknown (not 0)</span></p>`;
  return `<section class="panel" id="tokens"><h2>Tokens of settled subagents</h2>
<p class="lead">A subagent that reported no usage (total_tokens NULL) is <b>unmeasured</b>, never 0: totals and means cover measured subagents only, and the hatched strips show how many settled subagents each total does not cover. ${e(plural(r.tokens.outstanding, 'subagent'))} had not settled and ${r.tokens.outstanding === 1 ? 'is' : 'are'} not included. Groups beyond the ${GROUP_LIMIT} largest are summed into one "others" bar (the JSON lists every group).</p>
${tokenTable(r)}
${legend}
<div class="charts">${distribution}${byType}${byModel}</div></section>`;
}

function provenancePanel(r: SubagentContextReport): string {
  const p = r.provenance;
  const x = r.executions;
  const chart = horizontalBarChart({
    id: 'provenance',
    title: 'Rows by provenance',
    xLabel: 'subagent rows in the window',
    yLabel: '',
    bars: [
      { label: 'live', value: p.live, fill: COLOR.live },
      { label: 'backfill', value: p.backfill, fill: COLOR.backfill },
    ],
    fill: COLOR.live,
    format: formatInt,
    empty: 'No subagent row in the window.',
  });
  const distinct = x.distinct === null ? 'not counted: execution_since is absent, so no execution id is an identity' : formatInt(x.distinct);
  return `<section class="panel" id="provenance"><h2>Provenance and executions</h2>
<p class="lead">Backfilled rows were rebuilt from what survived in message metadata; they are shown apart from live rows and are not comparable like-for-like.</p>
<div class="charts">${chart}
<div class="table-wrap"><table><tbody>
<tr><td>distinct executions (excluding 'unknown')</td><td>${e(distinct)}</td></tr>
<tr><td>rows with an execution id</td><td>${formatInt(x.identified_rows)}</td></tr>
<tr><td>rows with 'unknown' (unrecorded, never one execution)</td><td>${formatInt(x.unknown_rows)}</td></tr>
<tr><td>… of which backfilled</td><td>${formatInt(x.unknown_backfill_rows)}</td></tr>
<tr><td>… of which live since execution_since</td><td>${x.unknown_live_rows_since_execution_since === null ? '—' : formatInt(x.unknown_live_rows_since_execution_since)}</td></tr>
<tr><td>live rows before capture_since</td><td>${p.live_before_capture_since === null ? '—' : formatInt(p.live_before_capture_since)}</td></tr>
</tbody></table></div></div></section>`;
}

function notesSection(r: SubagentContextReport): string {
  const items = r.caveats.length
    ? r.caveats
        .map((c) => {
          const { text, refs } = caveatNote(c);
          return `<li>${t(text)}${refs.length ? ` <span class="refs">[${e(refs.join(', '))}]</span>` : ''}</li>`;
        })
        .join('\n')
    : '<li>None of the reading rules limits these figures for this store and window.</li>';
  return `<section class="notes" id="caveats"><h2>Notes: how to read these figures</h2><ol>
${items}
</ol><p class="about">The bracketed criteria are the spec's; docs/report.md says what each figure counts.</p></section>`;
}

export interface PageMeta {
  /** When the page was generated; shown in its header and footer. */
  generatedAt?: Date;
  /** The package version that generated it. */
  version?: string;
}

export function renderReportHtml(r: SubagentContextReport, where: string, meta: PageMeta = {}): string {
  const generatedAt = (meta.generatedAt ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const version = meta.version ?? packageVersion();
  const knownTurns = r.fan_out.known.reduce((n, b) => n + b.turns, 0);
  const fannedOut = r.fan_out.known.filter((b) => b.subagents >= 2).reduce((n, b) => n + b.turns, 0);
  const generated = `Generated <time class="instant" datetime="${generatedAt}">${generatedAt}</time> by subagent-context <span class="version">${e(version)}</span>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Subagent fan-out report</title>
<style>${CSS}</style>
</head>
<body><main>
<header>
<h1>Subagent fan-out report</h1>
<p class="where">${e(visible(where))}</p>
<p class="generated" id="generated">${generated}</p>
<dl class="meta">
<dt>window</dt><dd>${t(describeWindow(r.window))}</dd>
<dt>scope</dt><dd>${t(clipVisible(describeScope(r.task_ids), 200))}</dd>
<dt>state</dt><dd><span class="state${r.state === 'activated' ? '' : ' warn'}">${e(r.state)}</span> ${e(STATE_MEANING[r.state])}</dd>
<dt>keys</dt><dd>capture_since ${t(keyText(r.keys.capture_since))} · backfill_through ${t(keyText(r.keys.backfill_through))} · execution_since ${t(keyText(r.keys.execution_since))}</dd>
</dl>
</header>
<section class="finding" id="finding"><h2>What it found</h2>
${findingLines(r)
  .map((l) => `<p>${t(l)}</p>`)
  .join('\n')}
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
${provenancePanel(r)}
${notesSection(r)}
<footer>${generated}. Figures follow the spec's reading rules (the notes above); docs/report.md says what each one counts.</footer>
</main></body>
</html>
`;
}
