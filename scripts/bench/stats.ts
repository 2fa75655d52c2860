// Small statistics and timing helpers for the benchmarks: every figure is a median of
// several runs, and per-frame latencies are reported as p50/p99.
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile of unsorted values; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Milliseconds since `start` (a process.hrtime.bigint() reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const fmtMs = (n: number) =>
  !Number.isFinite(n) ? 'n/a' : n >= 100 ? `${fmtInt(n)} ms` : n >= 1 ? `${n.toFixed(1)} ms` : `${(n * 1000).toFixed(0)} µs`;
export const fmtRatio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
/** Milliseconds `fn` takes, awaited. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return msSince(start);
}

export const runsText = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
