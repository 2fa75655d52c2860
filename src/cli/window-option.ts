// `report --since/--until`: an RFC3339 instant, passed to store.report() as it is, or a plain
// date (2026-08-01), which the CLI reads as that day's midnight UTC, the way a person types a
// day. The library itself takes instants only: a date has no time zone, and a host's caller
// must say which one it means.
import { usageError } from './cli-error.js';

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant store.report() gets for `--name value`. */
export function windowInstant(name: 'since' | 'until', value: string): string {
  const date = PLAIN_DATE.exec(value);
  if (!date) return value;
  const [year, month, day] = date.slice(1).map(Number);
  // setUTCFullYear, not Date.UTC: that reads years 0–99 as 1900–1999, so 0099-06-01 would fail
  // this check instead of reaching the store's range check (outside 1970…9999).
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) {
    throw usageError(`--${name} ${JSON.stringify(value)} is not a calendar date (YYYY-MM-DD)`);
  }
  return `${value}T00:00:00Z`;
}
