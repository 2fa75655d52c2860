// Figures that follow from a report's own, computed here once for every view that states them
// (the finding, the terminal report, the HTML page, the demo, the caveats): sums over the
// fan-out histograms, and the mean that reading unmeasured tokens as 0 would wrongly give.
// The report's JSON carries none of them, since each follows from figures it does carry.
import type { FanOutBucket, TokenFigures } from './types.js';

/** Turns in a fan-out histogram; with `atLeast`, only those that spawned at least that many subagents. */
export function turnsIn(buckets: readonly FanOutBucket[], atLeast = 0): number {
  return buckets.reduce((n, b) => (b.subagents >= atLeast ? n + b.turns : n), 0);
}

/** Subagents in a fan-out histogram: each bucket's turns times its subagents per turn. */
export function subagentsIn(buckets: readonly FanOutBucket[]): number {
  return buckets.reduce((n, b) => n + b.turns * b.subagents, 0);
}

/** The mean tokens per settled subagent if the unmeasured ones were read as 0 (what AC-7 forbids), or null with none settled. */
export function zeroFilledMean(tokens: Pick<TokenFigures, 'total_tokens' | 'settled'>): number | null {
  return tokens.settled === 0 ? null : tokens.total_tokens / tokens.settled;
}
