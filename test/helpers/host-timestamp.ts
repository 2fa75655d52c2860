// Host timestamp text as a dialect stores it, the one helper tests use to write a
// created_at / observed_at / settled_at literal (the other SQLite forms are sqlite-forms.ts).
import { formatMicros, formatSqliteColumn } from '../../src/instant.js';
import { byDialect } from './by-dialect.js';
import type { Dialect, TestDb } from './test-db.js';

/** Nanosecond durations, for writing instants as offsets. */
export const MICRO = 1_000n;
export const SECOND = 1_000_000_000n;

/**
 * `at` as host timestamp text on `on`'s dialect. An instant (ns) becomes the canonical form:
 * on SQLite the fixed-width `…ffffff+00:00` (one the Go driver also writes whenever the last
 * microsecond digit is non-zero; the trimmed forms are src/demo/host-rows.ts's
 * goDriverTimestamp), UTC TIMESTAMP text on PostgreSQL. UTC text ('YYYY-MM-DD HH:MM:SS[.f…]')
 * is kept as written, with `+00:00` after it on SQLite.
 */
export function hostTimestamp(on: TestDb | Dialect, at: bigint | string): string {
  const dialect = typeof on === 'string' ? on : on.dialect;
  if (typeof at === 'string') return byDialect(dialect, { sqlite: `${at}+00:00`, postgres: at });
  return byDialect(dialect, { sqlite: () => formatSqliteColumn(at), postgres: () => formatMicros(at) })();
}
