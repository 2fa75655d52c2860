// A COUNT or SUM as the drivers return it — SQLite as bigint or number, PostgreSQL's BIGINT
// and NUMERIC as decimal text (never through a host type parser) — as a number, for the
// health check and the report alike. Anything else is a statement returning what it must
// not, so it throws rather than becoming a figure.

/** A non-negative whole number (a SUM beyond 2^53 stays whole but is no longer exact). */
export function toCount(value: unknown, what: string): number {
  const n = typeof value === 'bigint' || typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new TypeError(`${what} is not a count: ${String(value)}`);
  return n;
}
