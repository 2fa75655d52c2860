// Inline SVG bar charts for the HTML report: no script, no font or image from anywhere, so
// the page renders the same offline. Every bar is a <rect class="bar"> carrying its label
// and value as data attributes (the browser test counts them); every text is escaped (all of
// it is written with markup``, ./html.ts), made visible (control and bidi characters as
// escapes, src/render/display-text.ts) and clipped, because subagent_type and model values
// come from agents, not from this package: a 100 KB label costs a few dozen characters on
// the page, and each label is its own <text>, so whatever direction it runs in cannot reorder
// the figures beside it.
import { maxOf, type Bar } from './chart-data.js';
import { clipVisible } from './display-text.js';
import { formatInt } from '../human-numbers.js';
import { markup, joinHtml, type Html } from './html.js';

/** Every chart's drawing width, in SVG units; the page scales it to the screen (html-style.ts). */
export const CHART_WIDTH = 560;

/** An RFC3339 instant in a text (captured, so that split() keeps it). */
const INSTANT = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/;

/** Text as HTML with every RFC3339 instant kept on one line (a timestamp never wraps mid-number). */
export const keepInstants = (text: string): Html =>
  joinHtml(
    text.split(INSTANT).map((part, i) => (i % 2 === 1 ? markup`<span class="instant">${part}</span>` : part)),
    '',
  );

/** A label as drawn beside a bar: visible, clipped to `width` columns. */
export const shownLabel = (text: string, width = 26) => clipVisible(text, width);
/** A label in a tooltip or a data attribute: longer, but still bounded. */
const fullLabel = (text: string) => clipVisible(text, 160);

export interface ChartSpec {
  /** Stable id: the figure's data-chart attribute. */
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  bars: Bar[];
  fill: string;
  format: (n: number) => string;
  /** Shown in place of the chart when every bar is 0. */
  empty: string;
  /** Vertical charts: the top of the value axis, to draw two charts on one scale (else this chart's own maximum). */
  scaleMax?: number;
}

/** 1, 2, 5 x 10^k, never below 1 (every vertical axis counts turns or subagents): the smallest step splitting max into at most `count` intervals. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  if (raw <= 1) return 1;
  const decade = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * decade >= raw) return m * decade;
  return 10 * decade;
}

/** The value-axis ticks of a count axis: 0, step, 2·step … top, distinct integers. */
export function countTicks(max: number, count = 4): { ticks: number[]; top: number } {
  const step = niceStep(Math.max(1, max), count);
  const top = Math.ceil(Math.max(1, max) / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  return { ticks, top };
}

const caption = (spec: ChartSpec) => markup`<figcaption>${keepInstants(spec.title)}</figcaption>`;
/** Shown only when the figure is narrower than the chart (html-style.ts): it then scrolls sideways. */
const SCROLL_HINT = markup`<p class="scroll-hint">Scroll sideways for the whole chart →</p>`;

function emptyFigure(spec: ChartSpec): Html {
  return markup`<figure class="chart" data-chart="${spec.id}">${caption(spec)}<p class="empty">${spec.empty}</p></figure>`;
}

/**
 * A diagonally hatched box: what the page draws where a figure is unknown (NULL), never a
 * solid 0 or a value. Drawn as plain lines clipped by hand, because the page's checks allow
 * no url() reference (a pattern fill would need one).
 */
function hatchedRect(x: number, y: number, w: number, h: number, count: number, tip: string): Html {
  const segments: string[] = [];
  for (let x0 = x - h; x0 < x + w; x0 += 4) {
    // A line rising 45° from (x0, y + h) to (x0 + h, y), cut to the box.
    const from = Math.max(x0, x);
    const to = Math.min(x0 + h, x + w);
    if (to <= from) continue;
    segments.push(`M${from.toFixed(1)} ${(y + h - (from - x0)).toFixed(1)}L${to.toFixed(1)} ${(y + h - (to - x0)).toFixed(1)}`);
  }
  return markup`<rect class="unmeasured" data-count="${count}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}"><title>${tip}</title></rect><path class="hatch-line" d="${segments.join('')}"/>`;
}

/** Vertical bars over a categorical x axis (histograms). Zero buckets keep their slot and draw no bar. */
export function verticalBarChart(spec: ChartSpec): Html {
  if (spec.bars.every((b) => b.value === 0)) return emptyFigure(spec);
  const W = CHART_WIDTH;
  const m = { top: 24, right: 16, bottom: 58, left: 64 };
  const plotW = W - m.left - m.right;
  const slot = plotW / spec.bars.length;
  const labels = spec.bars.map((b) => clipVisible(b.label, 18));
  // Labels wider than their slot are turned; the axis title then moves below them.
  const rotate = labels.some((l) => l.length * 7 > slot);
  if (rotate) m.bottom += 4.5 * maxOf(labels.map((l) => l.length));
  const H = 242 + m.bottom;
  const plotH = H - m.top - m.bottom;
  const { ticks, top } = countTicks(Math.max(spec.scaleMax ?? 0, maxOf(spec.bars.map((b) => b.value))));
  const y = (v: number) => m.top + plotH - (v / top) * plotH;
  const barW = Math.max(2, Math.min(56, slot * 0.72));

  const grid = ticks.flatMap((v) => [
    markup`<line class="grid" x1="${m.left}" x2="${W - m.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`,
    markup`<text class="tick y-tick" x="${m.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${spec.format(v)}</text>`,
  ]);
  const labelY = H - m.bottom + 18;
  const xLabel = (cx: number, text: string) =>
    rotate
      ? markup`<text class="tick" transform="translate(${cx.toFixed(1)},${labelY}) rotate(-35)" text-anchor="end">${text}</text>`
      : markup`<text class="tick" x="${cx.toFixed(1)}" y="${labelY}" text-anchor="middle">${text}</text>`;
  const column = (cx: number, b: Bar) => {
    const h = Math.max(1.5, (b.value / top) * plotH);
    const tip = `${fullLabel(b.label)}: ${spec.format(b.value)}`;
    return markup`<rect class="bar" data-label="${fullLabel(b.label)}" fill="${b.fill ?? spec.fill}" data-value="${b.value}" x="${(cx - barW / 2).toFixed(1)}" y="${(m.top + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" rx="2"><title>${tip}</title></rect><text class="value" x="${cx.toFixed(1)}" y="${(m.top + plotH - h - 5).toFixed(1)}" text-anchor="middle">${spec.format(b.value)}</text>`;
  };
  const bars = spec.bars.map((b, i) => {
    const cx = m.left + slot * (i + 0.5);
    return b.value === 0 ? xLabel(cx, labels[i]) : markup`${column(cx, b)}${xLabel(cx, labels[i])}`;
  });
  return joinHtml(
    [
      markup`<figure class="chart" data-chart="${spec.id}">${caption(spec)}${SCROLL_HINT}`,
      markup`<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${spec.title}" xmlns="http://www.w3.org/2000/svg">`,
      ...grid,
      markup`<line class="axis" x1="${m.left}" x2="${W - m.right}" y1="${y(0)}" y2="${y(0)}"/>`,
      ...bars,
      markup`<text class="axis-title" x="${m.left + plotW / 2}" y="${H - 6}" text-anchor="middle">${spec.xLabel}</text>`,
      markup`<text class="axis-title" transform="translate(14,${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${spec.yLabel}</text>`,
      markup`</svg></figure>`,
    ],
    '\n',
  );
}

/**
 * Horizontal bars, one row per group (labels can be long: subagent types, models). A bar with
 * a `share` also draws, under its value bar, its settled subagents as one strip: measured
 * solid, unmeasured (total_tokens NULL) hatched, so what the tokens do not cover is seen.
 */
export function horizontalBarChart(spec: ChartSpec): Html {
  if (spec.bars.every((b) => b.value === 0 && !b.share?.unmeasured)) return emptyFigure(spec);
  const W = CHART_WIDTH;
  const withShare = spec.bars.some((b) => b.share);
  const rowH = withShare ? 40 : 30;
  const m = { top: 8, right: 96, bottom: 34, left: 180 };
  const H = m.top + m.bottom + rowH * spec.bars.length;
  const plotW = W - m.left - m.right;
  const max = maxOf(spec.bars.map((b) => b.value));
  const maxSettled = maxOf(spec.bars.map((b) => (b.share ? b.share.measured + b.share.unmeasured : 0)));
  const rows = spec.bars.map((b, i) => {
    const yTop = m.top + i * rowH;
    const w = b.value === 0 || max === 0 ? 0 : Math.max(1.5, (b.value / max) * plotW);
    const label = markup`<text class="tick" x="${m.left - 8}" y="${yTop + 19}" text-anchor="end">${shownLabel(b.label)}<title>${fullLabel(b.label)}</title></text>`;
    const bar =
      w > 0 &&
      markup`<rect class="bar" data-label="${fullLabel(b.label)}" data-value="${b.value}" x="${m.left}" y="${yTop + 6}" width="${w.toFixed(1)}" height="${rowH - (withShare ? 20 : 12)}" rx="2" fill="${b.fill ?? spec.fill}"><title>${fullLabel(b.label)}: ${spec.format(b.value)}${b.note ? ` (${b.note})` : ''}</title></rect>`;
    const value = markup`<text class="value" x="${(m.left + w + 6).toFixed(1)}" y="${yTop + 19}">${spec.format(b.value)}</text>`;
    let share: Html | null = null;
    if (b.share && maxSettled > 0) {
      const unit = plotW / maxSettled;
      const y0 = yTop + rowH - 12;
      const mw = b.share.measured * unit;
      const uw = b.share.unmeasured * unit;
      const tip = `${fullLabel(b.label)}: ${formatInt(b.share.measured)} measured, ${formatInt(b.share.unmeasured)} unmeasured (NULL)`;
      const measured =
        mw > 0 &&
        markup`<rect class="share-measured" data-count="${b.share.measured}" x="${m.left}" y="${y0}" width="${mw.toFixed(1)}" height="6" fill="${spec.fill}"><title>${tip}</title></rect>`;
      share = markup`${measured}${uw > 0 && hatchedRect(m.left + mw, y0, uw, 6, b.share.unmeasured, tip)}`;
    }
    return markup`${label}${bar}${value}${share}`;
  });
  const notes =
    spec.bars.some((b) => b.note) &&
    markup`<ul class="notes">${spec.bars.map((b) => b.note && markup`<li><bdi>${shownLabel(b.label, 40)}</bdi>: ${b.note}</li>`)}</ul>`;
  return joinHtml(
    [
      markup`<figure class="chart" data-chart="${spec.id}">${caption(spec)}${SCROLL_HINT}`,
      markup`<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${spec.title}" xmlns="http://www.w3.org/2000/svg">`,
      markup`<line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${H - m.bottom}"/>`,
      ...rows,
      markup`<text class="axis-title" x="${m.left + plotW / 2}" y="${H - 10}" text-anchor="middle">${spec.xLabel}</text>`,
      markup`</svg>`,
      notes,
      markup`</figure>`,
    ],
    '\n',
  );
}
