// Column-alias hints, read from a statement's text. pgtyped's own convention works on both
// dialects: `AS "col!"` (never NULL) and `AS "col?"` (may be NULL). SQLite adds a type hint,
// because SQLite cannot type an expression column (COUNT(*), MAX(…), CASE, EXISTS) before it
// runs: `AS "col!::bigint"`, `AS "col?::string"`, `AS "col::number"` — a cast-like `::`
// because pgtyped's parser reads a single `:name` as a parameter even inside quotes.
//
// A type hint is SQLite-only. pgtyped strips only a final `!`/`?`, at codegen and again from
// each row at run time, so on PostgreSQL `"col!::bigint"` would reach the caller as a column
// named `col!::bigint`; PostgreSQL types its expressions itself. The SQLite generator strips
// every hint from the SQL it sends, so the caller sees `col` on both dialects.
//
// The type is what better-sqlite3 hands back for the value: with safeIntegers (every reader
// statement here) an INTEGER is `bigint`, a REAL `number`, TEXT `string`, a BLOB `Buffer`.
// It is a claim the author makes; test/result-types.test.ts checks every hinted column of
// the product's statements against the values the statements return.

export const HINT_TYPES = ['bigint', 'number', 'string', 'Buffer'] as const;
export type HintType = (typeof HINT_TYPES)[number];

export interface ColumnHint {
  readonly nullability?: '!' | '?';
  readonly type?: HintType;
}

/** `AS "name"` with an optional `!`/`?` and an optional `::type` (anything up to the quote,
 * so an unknown type is reported rather than ignored). */
const ALIAS = /AS\s+"([A-Za-z_][A-Za-z0-9_]*)([!?]?)(?:::([^"]*))?"/g;

export class ColumnHintError extends Error {}

/** The statement with every alias hint stripped, and the hints by column name. */
export function stripColumnHints(sql: string): { sql: string; hints: Map<string, ColumnHint> } {
  const hints = new Map<string, ColumnHint>();
  const stripped = sql.replace(ALIAS, (match, name: string, nullability: '' | '!' | '?', type: string | undefined) => {
    if (!nullability && type === undefined) return match;
    if (type !== undefined && !(HINT_TYPES as readonly string[]).includes(type)) {
      throw new ColumnHintError(`column "${name}": unknown type hint "::${type}" (one of ${HINT_TYPES.join(', ')})`);
    }
    hints.set(name, { ...(nullability ? { nullability } : {}), ...(type !== undefined ? { type: type as HintType } : {}) });
    return `AS "${name}"`;
  });
  return { sql: stripped, hints };
}

/** Columns whose alias carries a type hint (`::type`), which only the SQLite generator reads. */
export function typeHintedColumns(sql: string): string[] {
  return [...sql.matchAll(ALIAS)].filter((m) => m[3] !== undefined).map((m) => m[1]);
}

/** Aliases written with one colon (`AS "col!:bigint"`): pgtyped's parser would read
 * `:bigint` as a parameter, so codegen names them instead of reporting a parameter mismatch. */
export function singleColonHints(sql: string): string[] {
  return [...sql.matchAll(/AS\s+"([A-Za-z_][A-Za-z0-9_]*[!?]?):[A-Za-z]/g)].map((m) => m[1]);
}
