// The demo's clock. The store takes every instant it records from StoreOptions.clock, so the
// demo hands it a simulated one: the upgrade "boots" just after the seeded history ends, the
// activation keys and live rows land at the same instants on every run, and the host's
// message timestamps and the store's observations share one timeline.
export interface SimulatedClock {
  /** The store's clock: each reading is a little later than the last, like a real one. */
  readonly read: () => bigint;
  /** Moves time forward, e.g. between turns. */
  advance(ns: bigint): void;
}

const READING_STEP_NS = 7_000n; // 7 µs between successive readings

export function simulatedClock(startNs: bigint): SimulatedClock {
  let now = startNs;
  return {
    read: () => (now += READING_STEP_NS),
    advance(ns) {
      now += ns;
    },
  };
}

/** 2026-08-12T14:05:00Z: the boot that runs the upgrade, 40 minutes after the sampled window. */
export const DEMO_UPGRADE_AT_NS = BigInt(Date.UTC(2026, 7, 12, 14, 5, 0)) * 1_000_000n;
