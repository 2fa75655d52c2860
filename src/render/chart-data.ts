// What the report's charts show, shared by the terminal view (src/render/format-report.ts) and
// the HTML page (./html-page.ts) so both draw the same bars from the same figures. Nothing
// here computes a figure: it only orders, labels and (for a histogram axis) fills the gaps
// between non-empty buckets with zeros.
import type { FanOutBucket, SubagentContextReport, TokenGroup } from '../report/types.js';
import { formatInt, plural } from '../human-numbers.js';

export interface Bar {
  label: string;
  value: number;
  /** A short annotation printed after the value, e.g. "12 measured, 3 unmeasured". */
  note?: string;
  /** This bar's own colour in the HTML page (else the chart's). */
  fill?: string;
  /** Settled subagents of a token group: the page draws the unmeasured (NULL) share beside the tokens. */
  share?: { measured: number; unmeasured: number };
}

/** Groups drawn per token chart (by subagent_type, by model): the rest become one "others" bar; JSON keeps every group. */
export const GROUP_LIMIT = 10;

/** The largest value, 0 for none; never spreads an array into a call (a report may hold 100k+ groups). */
export const maxOf = (values: Iterable<number>) => {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max;
};

/** Up to this many subagents per turn the fan-out axis is contiguous (missing k shown as 0). */
const CONTIGUOUS_FAN_OUT = 30;

/**
 * One bar per subagents-per-turn value. `through` extends the axis (to draw two histograms on
 * one x scale); on a non-contiguous axis the other histogram's values are passed as `alsoAt`.
 */
export function fanOutBars(buckets: readonly FanOutBucket[], through = 0, alsoAt: readonly number[] = []): Bar[] {
  if (buckets.length === 0 && through === 0) return [];
  const max = Math.max(through, maxOf(buckets.map((b) => b.subagents)));
  const turns = new Map(buckets.map((b) => [b.subagents, b.turns]));
  const ks =
    max <= CONTIGUOUS_FAN_OUT
      ? Array.from({ length: max }, (_, i) => i + 1)
      : [...new Set([...buckets.map((b) => b.subagents), ...alsoAt])].sort((a, b) => a - b);
  return ks.map((k) => ({ label: String(k), value: turns.get(k) ?? 0 }));
}

/** 1234 -> "1.2k", 2000000 -> "2M": compact axis labels for token buckets. */
export function compactNumber(n: number): string {
  if (n >= 1e9) return `${trim(n / 1e9)}G`;
  if (n >= 1e6) return `${trim(n / 1e6)}M`;
  if (n >= 1e3) return `${trim(n / 1e3)}k`;
  return String(n);
}

const trim = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1).replace(/\.0$/, ''));

export function tokenDistributionBars(report: SubagentContextReport): Bar[] {
  return report.tokens.distribution.map((b) => ({ label: `${compactNumber(b.from)}–${compactNumber(b.to)}`, value: b.subagents }));
}

const groupNote = (measured: number, unmeasured: number, mean: number | null) =>
  `${formatInt(measured)} measured · ${formatInt(unmeasured)} unmeasured${mean === null ? '' : ` · mean ${formatInt(Math.round(mean))}`}`;

/**
 * Total tokens per group, largest first (then most settled); the note keeps measured and
 * unmeasured apart. Beyond `limit` groups the rest are summed into one "N others" bar, so a
 * store with 120k distinct subagent_type values draws limit + 1 bars, not 120k.
 */
export function tokenGroupBars<K extends string>(groups: readonly TokenGroup<K>[], key: K, notReported: string, limit = GROUP_LIMIT): Bar[] {
  const sorted = groups.filter((g) => g.settled > 0).sort((a, b) => b.total_tokens - a.total_tokens || b.settled - a.settled);
  const bar = (label: string, total: number, measured: number, unmeasured: number): Bar => ({
    label,
    value: total,
    note: groupNote(measured, unmeasured, measured === 0 ? null : total / measured),
    share: { measured, unmeasured },
  });
  const shown = sorted.slice(0, limit).map((g) => bar(g[key] ?? notReported, g.total_tokens, g.measured, g.unmeasured));
  const rest = sorted.slice(limit);
  if (rest.length === 0) return shown;
  const sum = (pick: (g: TokenGroup<K>) => number) => rest.reduce((t, g) => t + pick(g), 0);
  return [
    ...shown,
    bar(
      `(${plural(rest.length, 'other')})`,
      sum((g) => g.total_tokens),
      sum((g) => g.measured),
      sum((g) => g.unmeasured),
    ),
  ];
}

export function describeWindow(window: SubagentContextReport['window']): string {
  if (window.since === null && window.until === null) return 'all history';
  if (window.until === null) return `observed at or after ${window.since}`;
  if (window.since === null) return `observed before ${window.until}`;
  return `observed at or after ${window.since} and before ${window.until}`;
}

export function describeScope(taskIds: string[] | null): string {
  if (taskIds === null) return 'every task';
  if (taskIds.length === 0) return 'no task (an empty taskIds list)';
  const shown = taskIds.slice(0, 5).join(', ');
  return `${plural(taskIds.length, 'task')}: ${shown}${taskIds.length > 5 ? ', …' : ''}`;
}
