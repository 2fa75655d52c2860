// A deterministic clock for tests: each call advances by `stepNs`.
export function steppingClock(startNs = 1_785_000_000_123_456_789n, stepNs = 1_000_000n): (() => bigint) & { now(): bigint } {
  let t = startNs - stepNs;
  const clock = (() => (t += stepNs)) as (() => bigint) & { now(): bigint };
  clock.now = () => t;
  return clock;
}
