// The package's own result parsers, passed with every query it runs on PostgreSQL (node-postgres
// query config `types`), so no result depends on the host's global `pg.types` registry
// (DESIGN §8 "Type parsers"). A host that sets `pg.types.setTypeParser(16, …)` for its own
// rows must not change what checkHealth() or the lists read.
//
// Defined here rather than read from pg's registry: a host may have mutated that registry
// before the store is created. The package's statements return only text, booleans and
// int2/int4 counts (int8, numeric and timestamps are read as text on purpose: the rows and
// reports format them themselves, exactly); every other type stays text.
//
// Must stay a plain object: node-postgres also hands `types` to its Parse message, where a
// `length` property would be read as parameter type OIDs.

/** PostgreSQL type OIDs (pg_type.oid) the package parses. */
const BOOL = 16;
const INT2 = 21;
const INT4 = 23;

type TextParser = (value: string) => unknown;

const identity: TextParser = (value) => value;
const parsers: ReadonlyMap<number, TextParser> = new Map<number, TextParser>([
  [BOOL, (value) => value === 't'], // the server's text output for boolean is exactly 't' or 'f'
  [INT2, (value) => Number.parseInt(value, 10)],
  [INT4, (value) => Number.parseInt(value, 10)],
]);

export interface PackageTypeParsers {
  getTypeParser(oid: number): TextParser;
}

/** The `types` every package query carries. */
export const PACKAGE_TYPES: PackageTypeParsers = Object.freeze({
  getTypeParser(oid: number): TextParser {
    return parsers.get(oid) ?? identity; // the package never asks for binary results
  },
});
