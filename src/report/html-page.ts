// The report as ONE self-contained HTML page (`subagent-context report --html FILE`): inline
// CSS and inline SVG charts, no script at all, and a Content-Security-Policy that forbids
// every fetch, so the page can be mailed, archived or opened offline and shows the same.
// The caveats come first and stand out: they say how every figure below may be read.
import {
  describeScope,
  describeWindow,
  fanOutBars,
  formatInt,
  formatRatio,
  plural,
  STATE_MEANING,
  tokenDistributionBars,
  tokenGroupBars,
} from './chart-data.js';
import { escapeHtml as e, horizontalBarChart, verticalBarChart } from './svg-chart.js';
import type { SubagentContextReport } from './types.js';

const COLOR = { known: '#0f766e', unknown: '#c2410c', tokens: '#4338ca', live: '#0f766e', backfill: '#9a3412', cards: '#475569' };

const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f5f7; color: #1f2933; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
header h1 { margin: 0 0 4px; font-size: 26px; letter-spacing: -0.01em; }
header .where { color: #52606d; margin: 0 0 14px; word-break: break-all; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; font-size: 14px; }
dl.meta dt { color: #52606d; }
dl.meta dd { margin: 0; word-break: break-all; }
.state { display: inline-block; padding: 1px 8px; border-radius: 999px; font-weight: 600; font-size: 13px; background: #e0f2f1; color: #0f5f58; }
.state.warn { background: #fdecd8; color: #8a3b0a; }
section.caveats { margin: 22px 0; padding: 16px 20px; background: #fff8e6; border: 1px solid #f0c36d; border-left: 6px solid #d98e04; border-radius: 8px; }
section.caveats h2 { margin: 0 0 8px; font-size: 18px; color: #7a4d00; }
section.caveats ul { margin: 0; padding-left: 20px; }
section.caveats li { margin: 4px 0; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 14px; margin: 22px 0; }
.tile { background: #fff; border-radius: 10px; padding: 14px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.06), 0 0 0 1px rgba(0,0,0,.04); }
.tile .n { font-size: 28px; font-weight: 700; letter-spacing: -0.02em; }
.tile .l { color: #52606d; font-size: 13px; }
section.panel { background: #fff; border-radius: 12px; padding: 18px 20px 10px; margin: 18px 0; box-shadow: 0 1px 2px rgba(0,0,0,.06), 0 0 0 1px rgba(0,0,0,.04); }
section.panel h2 { margin: 0 0 4px; font-size: 19px; }
section.panel > p.lead { margin: 0 0 12px; color: #52606d; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 8px 24px; }
figure.chart { margin: 8px 0 14px; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figure.chart p.empty { color: #7b8794; font-style: italic; padding: 24px 0; margin: 0; }
svg .grid { stroke: #e4e7eb; stroke-width: 1; }
svg .axis { stroke: #9aa5b1; stroke-width: 1; }
svg .tick { fill: #52606d; font-size: 12px; }
svg .value { fill: #1f2933; font-size: 12px; font-weight: 600; }
svg .axis-title { fill: #3e4c59; font-size: 12.5px; font-weight: 600; }
ul.notes { list-style: none; padding: 0; margin: 4px 0 0; font-size: 12.5px; color: #52606d; }
table { border-collapse: collapse; width: 100%; font-size: 14px; margin: 6px 0 14px; }
th, td { text-align: right; padding: 5px 10px; border-bottom: 1px solid #e4e7eb; }
th:first-child, td:first-child { text-align: left; }
th { color: #52606d; font-weight: 600; }
.legend { display: inline-flex; align-items: center; gap: 6px; margin-right: 16px; font-size: 13px; color: #52606d; }
.swatch { width: 12px; height: 12px; border-radius: 3px; display: inline-block; }
footer { color: #7b8794; font-size: 12.5px; margin-top: 28px; }
`;

const tile = (n: string, label: string) => `<div class="tile"><div class="n">${e(n)}</div><div class="l">${e(label)}</div></div>`;

function keyText(value: string | null): string {
  return value === null ? 'absent' : value === '' ? "'' (sentinel: nothing to backfill, AC-24f)" : value;
}

function fanOutPanel(r: SubagentContextReport): string {
  const f = r.fan_out;
  const turns = (n: number) => formatInt(n);
  const known = verticalBarChart({
    id: 'fan-out-known',
    title: f.known_from === null ? 'Known fan-out: no boundary may be published' : `Known fan-out (first subagent at or after ${f.known_from})`,
    xLabel: 'subagents in the turn',
    yLabel: 'turns',
    bars: fanOutBars(f.known),
    fill: COLOR.known,
    format: turns,
    empty: f.known_from === null ? 'No fan-out is known on this store (see the caveats above).' : 'No turn with subagents in this era.',
  });
  const unknown = verticalBarChart({
    id: 'fan-out-unknown',
    title:
      f.known_from === null
        ? 'Unknown fan-out (no boundary: every count is a lower bound)'
        : 'Unknown fan-out (turns that began before the boundary: lower bounds)',
    xLabel: 'subagent rows in the turn (at least)',
    yLabel: 'turns',
    bars: fanOutBars(f.unknown),
    fill: COLOR.unknown,
    format: turns,
    empty: 'No turn with subagents in this era.',
  });
  return `<section class="panel" id="fan-out"><h2>Fan-out: subagents per turn</h2>
<p class="lead">Each bar counts the turns that spawned exactly that many subagents. Turns are counted whole, in the window where their first subagent was observed. ${e(plural(f.rows_without_turn, 'row'))} without a turn, ${e(plural(f.turns_past_until, 'turn'))} continuing past <i>until</i>, ${e(plural(f.turns_before_since, 'turn'))} begun before <i>since</i>.</p>
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
    .map(
      (g) =>
        `<tr><td>${e(g.source ?? '(none)')}</td><td>${formatInt(g.rows)}</td><td>${formatInt(g.settled)}</td><td>${formatInt(g.measured)}</td><td>${formatInt(g.unmeasured)}</td><td>${formatInt(g.total_tokens)}</td><td>${g.mean_tokens === null ? '—' : formatInt(Math.round(g.mean_tokens))}</td></tr>`,
    )
    .join('');
  const t = r.tokens;
  return `<table><thead><tr><th>source</th><th>rows</th><th>settled</th><th>measured</th><th>unmeasured (NULL)</th><th>total tokens</th><th>mean per measured</th></tr></thead>
<tbody>${rows}<tr><td><b>all</b></td><td><b>${formatInt(t.rows)}</b></td><td><b>${formatInt(t.settled)}</b></td><td><b>${formatInt(t.measured)}</b></td><td><b>${formatInt(t.unmeasured)}</b></td><td><b>${formatInt(t.total_tokens)}</b></td><td><b>${t.mean_tokens === null ? '—' : formatInt(Math.round(t.mean_tokens))}</b></td></tr></tbody></table>`;
}

function tokensPanel(r: SubagentContextReport): string {
  const tokens = (n: number) => formatInt(n);
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
  const byType = horizontalBarChart({
    id: 'tokens-by-subagent-type',
    title: 'Total tokens by subagent_type',
    xLabel: 'total_tokens of measured subagents',
    yLabel: '',
    bars: tokenGroupBars(r.tokens.by_subagent_type, 'subagent_type', '(not reported)'),
    fill: COLOR.tokens,
    format: tokens,
    empty: 'No settled subagent reported its token usage.',
  });
  const byModel = horizontalBarChart({
    id: 'tokens-by-model',
    title: 'Total tokens by model',
    xLabel: 'total_tokens of measured subagents',
    yLabel: '',
    bars: tokenGroupBars(r.tokens.by_model, 'model', '(not reported)'),
    fill: COLOR.tokens,
    format: tokens,
    empty: 'No settled subagent reported its token usage.',
  });
  return `<section class="panel" id="tokens"><h2>Tokens of settled subagents</h2>
<p class="lead">A subagent that reported no usage (total_tokens NULL) is <b>unmeasured</b>, never 0: totals and means cover measured subagents only. ${e(plural(r.tokens.outstanding, 'subagent'))} had not settled and ${r.tokens.outstanding === 1 ? 'is' : 'are'} not included.</p>
${tokenTable(r)}
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
  const distinct = x.distinct === null ? 'not counted: execution_since is absent (AC-24b)' : formatInt(x.distinct);
  return `<section class="panel" id="provenance"><h2>Provenance and executions</h2>
<p class="lead">Backfilled rows were rebuilt from what survived in message metadata; they are shown apart from live rows and are not comparable like-for-like (AC-25).</p>
<div class="charts">${chart}
<div><table><tbody>
<tr><td>distinct executions (excluding 'unknown')</td><td>${e(distinct)}</td></tr>
<tr><td>rows with an execution id</td><td>${formatInt(x.identified_rows)}</td></tr>
<tr><td>rows with 'unknown' (unrecorded, never one execution)</td><td>${formatInt(x.unknown_rows)}</td></tr>
<tr><td>… of which backfilled</td><td>${formatInt(x.unknown_backfill_rows)}</td></tr>
<tr><td>… of which live since execution_since</td><td>${x.unknown_live_rows_since_execution_since === null ? '—' : formatInt(x.unknown_live_rows_since_execution_since)}</td></tr>
<tr><td>live rows before capture_since</td><td>${p.live_before_capture_since === null ? '—' : formatInt(p.live_before_capture_since)}</td></tr>
</tbody></table></div></div></section>`;
}

export function renderReportHtml(r: SubagentContextReport, where: string): string {
  const knownTurns = r.fan_out.known.reduce((t, b) => t + b.turns, 0);
  const fannedOut = r.fan_out.known.filter((b) => b.subagents >= 2).reduce((t, b) => t + b.turns, 0);
  const caveats = r.caveats.length ? r.caveats.map((c) => `<li>${e(c)}</li>`).join('\n') : '<li>None apply to this store and window.</li>';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Subagent fan-out report</title>
<style>${CSS}</style>
</head>
<body><main>
<header>
<h1>Subagent fan-out report</h1>
<p class="where">${e(where)}</p>
<dl class="meta">
<dt>window</dt><dd>${e(describeWindow(r.window))}</dd>
<dt>scope</dt><dd>${e(describeScope(r.task_ids))}</dd>
<dt>state</dt><dd><span class="state${r.state === 'activated' ? '' : ' warn'}">${e(r.state)}</span> ${e(STATE_MEANING[r.state])}</dd>
<dt>keys</dt><dd>capture_since ${e(keyText(r.keys.capture_since))} · backfill_through ${e(keyText(r.keys.backfill_through))} · execution_since ${e(keyText(r.keys.execution_since))}</dd>
</dl>
</header>
<section class="caveats" id="caveats"><h2>Read these first (AC-25)</h2><ul>
${caveats}
</ul></section>
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
<footer>Generated by subagent-context report. Figures follow the spec's AC-25 reading rules; see docs/report.md for what each one counts.</footer>
</main></body>
</html>
`;
}
