// Dialect-keyed expectations (the Kysely habit, STYLE.md): the value, SQL or step a test uses
// on each dialect is written as a record with one entry per dialect, never as
// `dialect === 'sqlite' ? a : b`. Adding a dialect to DIALECTS (src/dialect.ts) then makes every
// record that lacks it a type error, where a ternary would send the new dialect silently down
// the other branch. A block that runs on one dialect only is `if (byDialect(d, { sqlite: true,
// postgres: false }))`: the new dialect still has to say whether it applies.
import type { Dialect } from './test-db.js';

/** The entry of `values` for `dialect`; `values` must name every dialect. */
export function byDialect<R extends Readonly<Record<Dialect, unknown>>>(dialect: Dialect, values: R): R[Dialect] {
  return values[dialect];
}
