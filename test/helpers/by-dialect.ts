// Dialect-keyed expectations (the Kysely habit, STYLE.md): the value, SQL or step a test uses
// on each dialect is written as a record with one entry per dialect, never as
// `dialect === 'sqlite' ? a : b`. Adding a dialect to DIALECTS (src/dialect.ts) then makes every
// record that lacks it a type error, where a ternary would send the new dialect silently down
// the other branch. A block that runs on one dialect only is `if (byDialect(d, { sqlite: true,
// postgres: false }))`: the new dialect still has to say whether it applies. The helper is the
// package's own (src/ and scripts/ write dialects as records too, and a lint rule holds them to it).
export { byDialect } from '../../src/dialect.js';
