// Human-readable health output: every figure, what it means, and the verdict. Key values are
// the host's data: made visible and clipped (src/render/display-text.ts). `--json` prints the
// HealthReport itself instead, verbatim.
import { clipVisible, visibleLines } from './display-text.js';
import { plural } from '../human-numbers.js';
import { parseInstant } from '../instant.js';
import type { HealthReport } from '../types.js';
import { STATE_MEANING } from './state-meaning.js';

function keyLine(name: string, value: string | null, emptyMeaning: string): string {
  const shown = value === null ? 'absent' : value === '' ? `''  ${emptyMeaning}` : clipVisible(value, 64);
  return `  ${name.padEnd(18)}${shown}`;
}

function verdictLine(report: HealthReport): string {
  switch (report.verdict) {
    case 'healthy':
      return 'healthy: every subagent message since capture_since has its row';
    case 'shortfall':
      return `SHORTFALL: ${report.shortfall} subagent${report.shortfall === 1 ? '' : 's'} since capture_since ${report.shortfall === 1 ? 'has' : 'have'} no row (confirmed by a second evaluation): the writer is missing writes`;
    case 'nothing_since_activation':
      return 'NOTHING SINCE ACTIVATION: no row has been observed since capture_since; this is never read as healthy';
    case 'not_activated':
      return 'NOT ACTIVATED: capture_since is absent, so the comparison was not run; the missing key is the signal';
  }
}

function figure(name: string, value: number | string | null, meaning: string): string {
  return `${name.padEnd(20)}${String(value ?? 'not run').padEnd(30)}${meaning}`;
}

/** "3 minutes", "5 hours", "2 days": how long ago capture began, rounded down. */
function elapsed(fromNs: bigint, now: Date): string {
  const seconds = Math.floor((now.getTime() - Number(fromNs / 1_000_000n)) / 1000);
  if (seconds < 60) return 'less than a minute';
  if (seconds < 3600) return plural(Math.floor(seconds / 60), 'minute');
  if (seconds < 2 * 86_400) return plural(Math.floor(seconds / 3600), 'hour');
  return plural(Math.floor(seconds / 86_400), 'day');
}

/**
 * Exit 5 on a store just set up is what an operator meets first: no subagent has run yet. It
 * stays 5 (nothing observed is never "healthy"), so the text says what it does and does not
 * mean: no subagent message arrived either (a shortfall would outrank it), so this is no
 * activity, not a writer losing launches; and how long capture has been on, to judge by.
 */
function nothingYetLines(report: HealthReport, now: Date): string[] {
  const since = report.keys.capture_since === null ? null : parseInstant(report.keys.capture_since);
  const began = since === null ? 'capture began' : `capture began ${elapsed(since, now)} ago`;
  return [
    `  what it means: ${began}, and since then no subagent has been launched: no subagent message and no row.`,
    '  On a store set up recently that is "no activity yet", not a dead writer: a writer that loses launches',
    '  the host recorded shows SHORTFALL (exit 3). Exit 5 stays until the first subagent is recorded; alarm on',
    '  it only once capture_since is older than the longest quiet spell you expect (docs/health.md).',
  ];
}

export function formatHealth(report: HealthReport, where: string, now: Date = new Date()): string {
  const notRun = report.shortfall === null;
  const lines = [
    `subagent-context health: ${where}`,
    'activation keys',
    keyLine('capture_since', report.keys.capture_since, ''),
    keyLine('backfill_through', report.keys.backfill_through, 'the backfill matched nothing: no earlier history to recover'),
    keyLine('execution_since', report.keys.execution_since, ''),
    `${'state'.padEnd(20)}${report.state}: ${STATE_MEANING[report.state]}`,
  ];
  if (notRun) {
    lines.push(figure('comparison', null, 'capture_since is absent: there is no window to compare'));
  } else {
    lines.push(
      figure('shortfall', report.shortfall, 'subagent messages with no row: the alarm'),
      figure('excess', report.excess, 'rows with no subagent message: attributed, never an alarm'),
      figure('collisions', report.collisions, 'extra rows from a tool_call_id reused across executions'),
      figure('last observed', report.last_observed_at ?? 'none', 'newest row observed since capture_since'),
    );
  }
  lines.push(`verdict: ${verdictLine(report)}`);
  if (report.verdict === 'nothing_since_activation') lines.push(...nothingYetLines(report, now));
  return visibleLines(`${lines.join('\n')}\n`);
}
