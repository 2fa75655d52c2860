// Inline SVG bar charts for the HTML report: no script, no font or image from anywhere, so
// the page renders the same offline. Every bar is a <rect class="bar"> carrying its label
// and value as data attributes (the browser test counts them); every text is escaped,
// because subagent_type and model values come from agents, not from this package.
import type { Bar } from './chart-data.js';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

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
}

/** 1, 2, 5 x 10^k: the smallest "nice" step that splits max into at most `count` intervals. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const decade = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * decade >= raw) return Math.max(m * decade, Number.MIN_VALUE);
  return 10 * decade;
}

function emptyFigure(spec: ChartSpec): string {
  return `<figure class="chart" data-chart="${spec.id}"><figcaption>${escapeHtml(spec.title)}</figcaption><p class="empty">${escapeHtml(spec.empty)}</p></figure>`;
}

/** Vertical bars over a categorical x axis (histograms). Zero buckets keep their slot and draw no bar. */
export function verticalBarChart(spec: ChartSpec): string {
  if (spec.bars.every((b) => b.value === 0)) return emptyFigure(spec);
  const W = 560;
  const m = { top: 24, right: 16, bottom: 58, left: 64 };
  const plotW = W - m.left - m.right;
  const slot = plotW / spec.bars.length;
  // Labels wider than their slot are turned; the axis title then moves below them.
  const rotate = spec.bars.some((b) => b.label.length * 7 > slot);
  if (rotate) m.bottom += 4.5 * Math.max(...spec.bars.map((b) => b.label.length));
  const H = 242 + m.bottom;
  const plotH = H - m.top - m.bottom;
  const max = Math.max(...spec.bars.map((b) => b.value));
  const step = niceStep(max, 4);
  const top = Math.ceil(max / step) * step;
  const y = (v: number) => m.top + plotH - (v / top) * plotH;
  const barW = Math.max(2, Math.min(56, slot * 0.72));

  const grid: string[] = [];
  for (let v = 0; v <= top + step / 2; v += step) {
    grid.push(
      `<line class="grid" x1="${m.left}" x2="${W - m.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`,
      `<text class="tick" x="${m.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(spec.format(v))}</text>`,
    );
  }
  const bars = spec.bars.map((b, i) => {
    const cx = m.left + slot * (i + 0.5);
    const labelY = H - m.bottom + 18;
    const label = rotate
      ? `<text class="tick" transform="translate(${cx.toFixed(1)},${labelY}) rotate(-35)" text-anchor="end">${escapeHtml(b.label)}</text>`
      : `<text class="tick" x="${cx.toFixed(1)}" y="${labelY}" text-anchor="middle">${escapeHtml(b.label)}</text>`;
    if (b.value === 0) return label;
    const h = Math.max(1.5, (b.value / top) * plotH);
    const x = cx - barW / 2;
    return [
      `<rect class="bar" data-label="${escapeHtml(b.label)}" data-value="${b.value}" x="${x.toFixed(1)}" y="${(m.top + plotH - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" rx="2" fill="${b.fill ?? spec.fill}"><title>${escapeHtml(`${b.label}: ${spec.format(b.value)}`)}</title></rect>`,
      `<text class="value" x="${cx.toFixed(1)}" y="${(m.top + plotH - h - 5).toFixed(1)}" text-anchor="middle">${escapeHtml(spec.format(b.value))}</text>`,
      label,
    ].join('');
  });
  return [
    `<figure class="chart" data-chart="${spec.id}"><figcaption>${escapeHtml(spec.title)}</figcaption>`,
    `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(spec.title)}" xmlns="http://www.w3.org/2000/svg">`,
    ...grid,
    `<line class="axis" x1="${m.left}" x2="${W - m.right}" y1="${y(0)}" y2="${y(0)}"/>`,
    ...bars,
    `<text class="axis-title" x="${m.left + plotW / 2}" y="${H - 6}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`,
    `<text class="axis-title" transform="translate(14,${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`,
    '</svg></figure>',
  ].join('\n');
}

/** Horizontal bars, one row per group (labels can be long: subagent types, models). */
export function horizontalBarChart(spec: ChartSpec): string {
  if (spec.bars.every((b) => b.value === 0)) return emptyFigure(spec);
  const W = 560;
  const rowH = 30;
  const m = { top: 8, right: 96, bottom: 34, left: 180 };
  const H = m.top + m.bottom + rowH * spec.bars.length;
  const plotW = W - m.left - m.right;
  const max = Math.max(...spec.bars.map((b) => b.value));
  const clip = (t: string) => (t.length > 26 ? `${t.slice(0, 25)}…` : t);
  const rows = spec.bars.map((b, i) => {
    const yTop = m.top + i * rowH;
    const w = b.value === 0 ? 0 : Math.max(1.5, (b.value / max) * plotW);
    const label = `<text class="tick" x="${m.left - 8}" y="${yTop + 19}" text-anchor="end">${escapeHtml(clip(b.label))}<title>${escapeHtml(b.label)}</title></text>`;
    const bar =
      w === 0
        ? ''
        : `<rect class="bar" data-label="${escapeHtml(b.label)}" data-value="${b.value}" x="${m.left}" y="${yTop + 6}" width="${w.toFixed(1)}" height="${rowH - 12}" rx="2" fill="${b.fill ?? spec.fill}"><title>${escapeHtml(`${b.label}: ${spec.format(b.value)}${b.note ? ` (${b.note})` : ''}`)}</title></rect>`;
    const value = `<text class="value" x="${(m.left + w + 6).toFixed(1)}" y="${yTop + 19}">${escapeHtml(spec.format(b.value))}</text>`;
    return label + bar + value;
  });
  return [
    `<figure class="chart" data-chart="${spec.id}"><figcaption>${escapeHtml(spec.title)}</figcaption>`,
    `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(spec.title)}" xmlns="http://www.w3.org/2000/svg">`,
    `<line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${H - m.bottom}"/>`,
    ...rows,
    `<text class="axis-title" x="${m.left + plotW / 2}" y="${H - 10}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`,
    '</svg>',
    spec.bars.some((b) => b.note)
      ? `<ul class="notes">${spec.bars.map((b) => (b.note ? `<li><b>${escapeHtml(b.label)}</b>: ${escapeHtml(b.note)}</li>` : '')).join('')}</ul>`
      : '',
    '</figure>',
  ].join('\n');
}
