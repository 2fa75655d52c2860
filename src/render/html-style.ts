// The report page's stylesheet (./html-page.ts inlines it: the page fetches nothing), and the
// chart colours, which the sections (./html-panels.ts) give the bars.

import { CHART_WIDTH } from './svg-chart.js';

/** The narrowest a chart is shown: its 12-unit labels at 11/12 scale are 11 px. */
const CHART_MIN_WIDTH = Math.ceil((CHART_WIDTH * 11) / 12) + 2;
/** The token table's narrowest: its seven columns of figures, unwrapped. */
const WIDE_TABLE_MIN_WIDTH = 640;

export const COLOR = { known: '#0f766e', unknown: '#c2410c', tokens: '#4338ca', live: '#0f766e', backfill: '#9a3412', cards: '#475569' };

// Light by default; dark under prefers-color-scheme: dark; light and flat on paper. Narrow
// screens (down to 400 px) get one column, and nothing forces the page wider than the screen:
// charts scale down, but never below CHART_MIN_WIDTH, where their 12-unit labels would drop
// under 11 px: narrower than that a chart scrolls sideways inside its own box instead, and
// the wide token table likewise; each then shows a hint saying so. The hints follow the box's
// own width (container queries), so one shows exactly when its box is too narrow to hold it.
// Instants never break mid-number.
export const PAGE_CSS = `
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
figure.chart { margin: 8px 0 14px; overflow-x: auto; container-type: inline-size; }
figure.chart svg { min-width: ${CHART_MIN_WIDTH}px; }
.scroll-hint { display: none; margin: 0 0 4px; color: var(--faint); font-size: 12.5px; }
@container (max-width: ${CHART_MIN_WIDTH - 0.02}px) { figure.chart .scroll-hint { display: block; } }
.table-wrap.wide { container-type: inline-size; }
.table-wrap.wide table { min-width: ${WIDE_TABLE_MIN_WIDTH}px; }
@container (max-width: ${WIDE_TABLE_MIN_WIDTH - 0.02}px) { .table-wrap.wide .scroll-hint { display: block; position: sticky; left: 0; } }
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
p.ledger-finding { margin: 6px 0 8px; font-size: 16px; font-weight: 600; }
td .unknown { color: var(--faint); font-style: italic; }
th.text, td.text { text-align: left; }
td.id { white-space: nowrap; }
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
