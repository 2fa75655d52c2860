// The stored forms a SQLite host timestamp takes (DESIGN §4): the Go driver's fixed and
// trimmed fractions, any ±HH:MM offset, RFC3339 T/Z, nanosecond digits. Tests write the same
// instant in each form to prove a comparison is exact whatever the form.
import { formatMicros, formatUtc9 } from '../../src/instant.js';

const HOUR = 3_600_000_000_000n;

export const SQLITE_FORMS = ['canonical', 'trimmed', 'plus02', 'minus03', 'plus14', 'rfc3339', 'nanos', 'seconds'] as const;
export type SqliteForm = (typeof SQLITE_FORMS)[number];

/** `ns` as SQLite host text in `form` ('seconds' drops the fraction: only for whole seconds). */
export function sqliteForm(ns: bigint, form: SqliteForm): string {
  const trim = (text: string) => text.replace(/\.?0+$/, '');
  const local = (offsetNs: bigint) => trim(formatUtc9(ns + offsetNs));
  switch (form) {
    case 'canonical':
      return `${formatMicros(ns)}+00:00`;
    case 'trimmed':
      return `${local(0n)}+00:00`;
    case 'plus02':
      return `${local(2n * HOUR)}+02:00`;
    case 'minus03':
      return `${local(-3n * HOUR)}-03:00`;
    case 'plus14':
      return `${local(14n * HOUR)}+14:00`;
    case 'rfc3339':
      return `${local(0n).replace(' ', 'T')}Z`;
    case 'nanos':
      return `${formatUtc9(ns)}+00:00`;
    case 'seconds':
      return formatUtc9(ns).slice(0, 19);
  }
}
