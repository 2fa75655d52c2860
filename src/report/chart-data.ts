// What the report's charts show, shared by the terminal view (src/cli/format-report.ts) and
// the HTML page (./html-page.ts) so both draw the same bars from the same figures. Nothing
// here computes a figure: it only orders, labels and (for a histogram axis) fills the gaps
// between non-empty buckets with zeros.
import type { FanOutBucket, SubagentContextReport, TokenGroup } from './types.js';

export interface Bar {
  label: string;
  value: number;
  /** A short annotation printed after the value, e.g. "12 measured, 3 unmeasured". */
  note?: string;
  /** This bar's own colour in the HTML page (else the chart's). */
  fill?: string;
}

/** Up to this many subagents per turn the fan-out axis is contiguous (missing k shown as 0). */
const CONTIGUOUS_FAN_OUT = 30;

export function fanOutBars(buckets: readonly FanOutBucket[]): Bar[] {
  if (buckets.length === 0) return [];
  const max = Math.max(...buckets.map((b) => b.subagents));
  const turns = new Map(buckets.map((b) => [b.subagents, b.turns]));
  const ks = max <= CONTIGUOUS_FAN_OUT ? Array.from({ length: max }, (_, i) => i + 1) : buckets.map((b) => b.subagents);
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

/** Total tokens per group, largest first; the note keeps measured and unmeasured apart. */
export function tokenGroupBars<K extends string>(groups: readonly TokenGroup<K>[], key: K, notReported: string): Bar[] {
  return [...groups]
    .filter((g) => g.settled > 0)
    .sort((a, b) => b.total_tokens - a.total_tokens || b.settled - a.settled)
    .map((g) => ({
      label: g[key] ?? notReported,
      value: g.total_tokens,
      note: `${g.measured.toLocaleString('en-US')} measured · ${g.unmeasured.toLocaleString('en-US')} unmeasured${g.mean_tokens === null ? '' : ` · mean ${Math.round(g.mean_tokens).toLocaleString('en-US')}`}`,
    }));
}

export const formatInt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
export const formatRatio = (n: number | null) => (n === null ? '—' : n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
export const plural = (n: number, one: string, many = `${one}s`) => `${formatInt(n)} ${n === 1 ? one : many}`;

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

export const STATE_MEANING: Record<SubagentContextReport['state'], string> = {
  activated: 'fully activated',
  capture_only: 'capture works; Amendment 1 has not applied (no execution identities, AC-24b)',
  execution_only: 'the backfill has not succeeded: no coverage boundary (AC-24a)',
  not_activated: 'not activated: no boundary, no absence is evidence (AC-24c)',
};
