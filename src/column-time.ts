// The live writers' timestamp text (DESIGN §4: clock nanoseconds -> column microseconds, by
// truncation), memoizing the whole-second prefix: a writer sees many frames per second, so
// between consecutive frames only the fraction changes. Output is byte-identical to
// formatMicros (src/instant.ts) followed by `suffix`; formatMicros remains the general case.
import { formatMicros } from './instant.js';

const NS_PER_S = 1_000_000_000n;
const NS_PER_US = 1000n;
/** 10000-01-01T00:00:00Z: timestamp columns hold four-digit years; the store rejects later clocks. */
export const MAX_COLUMN_INSTANT_NS = 253_402_300_800n * NS_PER_S;

/** Returns a formatter for instants in [0, MAX_COLUMN_INSTANT_NS): `YYYY-MM-DD HH:MM:SS.ffffff${suffix}`. */
export function createColumnTimeFormatter(suffix: string): (ns: bigint) => string {
  let second = -1n;
  let prefix = ''; // 'YYYY-MM-DD HH:MM:SS.'
  return (ns) => {
    const s = ns / NS_PER_S;
    if (s !== second) {
      prefix = formatMicros(s * NS_PER_S).slice(0, 20);
      second = s;
    }
    const micros = Number((ns - s * NS_PER_S) / NS_PER_US);
    return `${prefix}${micros >= 100_000 ? micros : String(micros).padStart(6, '0')}${suffix}`;
  };
}
