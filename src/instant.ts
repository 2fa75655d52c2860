// Instants as bigint nanoseconds since the Unix epoch, and their three written forms
// (DESIGN §4): activation keys keep all nine digits; columns take microseconds, truncated.
const NS_PER_US = 1000n;
const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/**
 * Past this much apart, the wall clock has moved under the monotonic one (a suspend, an NTP or
 * VM clock step) and the reading follows it. Date.now() counts whole milliseconds and the
 * anchor was taken from one such reading, so with no step at all the two legitimately differ
 * by up to 1 ms either way; 2 ms never re-anchors on that rounding, and keeps every reading
 * within about 2 ms of the wall clock, the precision an NTP-disciplined clock has anyway.
 */
const MAX_DRIFT_NS = 2n * NS_PER_MS;

/**
 * The default clock: the wall clock (the spec's instants are time.Now().UTC()), read from
 * Date.now() on every call, with the nanoseconds within its millisecond from the monotonic
 * hrtime. Readings never decrease: a key the migrations write is compared with the rows
 * observed after it (docs/timestamps.md), so after a backward step the clock holds its last
 * reading until the wall clock passes it, rather than date later rows before earlier ones.
 */
export function createWallClock(): () => bigint {
  let anchor = BigInt(Date.now()) * NS_PER_MS - process.hrtime.bigint();
  let last = 0n;
  return () => {
    const mono = process.hrtime.bigint();
    const wall = BigInt(Date.now()) * NS_PER_MS;
    let ns = anchor + mono;
    if (ns - wall > MAX_DRIFT_NS || wall - ns > MAX_DRIFT_NS) {
      anchor = wall - mono;
      ns = wall;
    }
    if (ns < last) return last;
    last = ns;
    return ns;
  };
}

function split(ns: bigint): { date: string; fraction9: string } {
  const seconds = ns >= 0n ? ns / NS_PER_S : (ns - NS_PER_S + 1n) / NS_PER_S;
  const fraction = ns - seconds * NS_PER_S;
  const date = new Date(Number(seconds) * 1000).toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  return { date, fraction9: fraction.toString().padStart(9, '0') };
}

/** `2026-11-30T04:05:06.123456789Z`: the form every activation key this build writes takes. */
export function formatKeyInstant(ns: bigint): string {
  const { date, fraction9 } = split(ns);
  return `${date}.${fraction9}Z`;
}

/** `2026-11-30 04:05:06.123456`: UTC, microseconds truncated (PostgreSQL TIMESTAMP input). */
export function formatMicros(ns: bigint): string {
  const { date, fraction9 } = split(ns);
  return `${date.replace('T', ' ')}.${fraction9.slice(0, 6)}`;
}

/** `2026-11-30 04:05:06.123456+00:00`: the fixed-width form the package writes on SQLite. */
export function formatSqliteColumn(ns: bigint): string {
  return `${formatMicros(ns)}+00:00`;
}

/** `2026-11-30 04:05:06.123456789`: the "utc9" form SQLite comparisons normalize both sides to. */
export function formatUtc9(ns: bigint): string {
  const { date, fraction9 } = split(ns);
  return `${date.replace('T', ' ')}.${fraction9}`;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/;

/** Milliseconds since the epoch of a UTC civil time, for every four-digit year: Date.UTC alone reads years 0–99 as 1900–1999. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/**
 * Parses a stored key or timestamp (RFC3339 with 0–9 fraction digits, `T` or space, `Z` or
 * a ±HH:MM offset within ±23:59; no offset means UTC) into exact nanoseconds, for every year
 * 0000–9999 (0099 is year 99, never 1999). Returns null when the text is not such an
 * instant, which includes AC-24f's '' sentinel, an impossible date and an offset like +99:99.
 */
export function parseInstant(text: string): bigint | null {
  const m = INSTANT.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  if (+mo < 1 || +mo > 12 || +d < 1 || +d > 31 || +h > 23 || +mi > 59 || +s > 59) return null;
  const ms = utcMillis(+y, +mo, +d, +h, +mi, +s);
  if (new Date(ms).getUTCDate() !== +d) return null; // 02-30 rolled over into March
  let ns = BigInt(ms) * NS_PER_MS + BigInt(frac.padEnd(9, '0') || '0');
  if (zone !== 'Z') {
    const [offsetHours, offsetMinutes] = [+zone.slice(1, 3), +zone.slice(4, 6)];
    if (offsetHours > 23 || offsetMinutes > 59) return null; // RFC3339 time-numoffset
    const sign = zone[0] === '-' ? -1n : 1n;
    ns -= sign * BigInt(offsetHours * 60 + offsetMinutes) * 60n * NS_PER_S;
  }
  return ns;
}

/** Smallest whole microsecond at or after ns: `col >= ceilMicros(key)` iff `col >= key`. */
export function ceilToMicros(ns: bigint): bigint {
  const rem = ((ns % NS_PER_US) + NS_PER_US) % NS_PER_US;
  return rem === 0n ? ns : ns - rem + NS_PER_US;
}
