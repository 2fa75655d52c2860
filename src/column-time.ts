// The live writers' timestamp text (DESIGN §4: clock nanoseconds -> column microseconds, by
// truncation), memoizing the whole-second prefix: a writer sees many frames per second, so
// between consecutive frames only the fraction changes. Output is byte-identical to
// formatMicros (src/instant.ts) followed by `suffix`; formatMicros remains the general case.
import { ceilToMicros, formatMicros } from './instant.js';

const NS_PER_S = 1_000_000_000n;
const NS_PER_US = 1000n;
/** 10000-01-01T00:00:00Z: timestamp columns hold four-digit years; the store rejects later clocks. */
export const MAX_COLUMN_INSTANT_NS = 253_402_300_800n * NS_PER_S;

/**
 * An instant a window or key boundary can hold: in [1970, 10000) once rounded up to whole
 * microseconds, as every boundary is bound (ceilToMicros). The report's options and keys and
 * the health window share this one range, so no bound the API accepts reaches a database out
 * of range (an adversarial review: '9999-12-31T23:59:59.9999995Z' rounded to year 10000 and
 * PostgreSQL failed where SQLite answered; a year-0000 capture_since failed PostgreSQL's health
 * check, and a 1969 one was a window for health and "not an instant" for the report).
 */
export function isBoundaryInstant(ns: bigint): boolean {
  return ns >= 0n && ceilToMicros(ns) < MAX_COLUMN_INSTANT_NS;
}

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
