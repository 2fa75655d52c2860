// How many rows a statement returns, declared in its .sql file by a `/* @returns … */` line
// above `/* @name … */` (docs/typed-queries.md): codegen checks the declaration against what the
// statement returns and generates the query as the class of that cardinality, whose one method
// returns what the caller needs (src/<dialect>/prepared-query.ts):
// - one:       `.one()`, the row; a statement that returned none throws NoRowError.
// - maybe-one: `.maybeOne()`, the row or undefined.
// - many:      `.many()`, the rows.
// - exec:      `.exec()`, the number of rows the statement wrote; it returns no rows.
import { NoRowError } from './errors.js';

export const QUERY_RETURNS = ['one', 'maybe-one', 'many', 'exec'] as const;
export type QueryReturns = (typeof QUERY_RETURNS)[number];

/** A `one` statement's first row; NoRowError, naming the query, when it returned none. */
export function theRow<T>(query: string, row: T | undefined): T {
  if (row === undefined) throw new NoRowError(query);
  return row;
}
