// Runtime for the typed PostgreSQL functions in generated/postgres/: the part of
// @pgtyped/runtime's PreparedQuery the package used, without its parser. Codegen turned each
// statement's `:name` parameters into `$1..$n` text and the order of their values
// (scripts/lib/generators/postgres/generator.ts; test/codegen-precompiled.test.ts proves both
// equal what pgtyped's runtime builds), so running one only puts the values in that order.
// Hence no runtime dependency: a host installs this package and its driver, nothing else.
import { theRow } from '../query-returns.js';

/** What a typed function calls on a connection: a node-postgres Pool, PoolClient or Client. */
export interface PostgresQueryRunner {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** pgtyped's column hints (`AS "col!"`, `AS "col?"`) name the result column `col`. */
export function withoutHintSuffixes<T>(rows: T[]): T[] {
  for (const row of rows as Record<string, unknown>[]) {
    for (const column of Object.keys(row)) {
      const last = column[column.length - 1];
      if (last !== '!' && last !== '?') continue;
      row[column.slice(0, -1)] = row[column];
      delete row[column];
    }
  }
  return rows;
}

export class PostgresPreparedQuery<TParams, TResult> {
  constructor(
    /** Query name, as in the `@name` annotation. */
    readonly name: string,
    /** The statement as sent to PostgreSQL, parameters written `$1..$n`. */
    readonly text: string,
    /** The parameter bound to `$i + 1` is `paramNames[i]`; an absent value binds as NULL. */
    readonly paramNames: readonly string[],
  ) {}

  /** The `$1..$n` values for `params`, in order. */
  values(params: TParams): unknown[] {
    const source = (params ?? {}) as Record<string, unknown>;
    return this.paramNames.map((name) => source[name] ?? null);
  }

  /** Runs the statement and returns its rows, raw: values as the connection's type parsers made them. */
  async run(params: TParams, connection: PostgresQueryRunner): Promise<TResult[]> {
    return (await this.runWithCounts(params, connection)).result;
  }

  /** Like run(), with the number of rows the statement wrote or returned. */
  async runWithCounts(params: TParams, connection: PostgresQueryRunner): Promise<{ result: TResult[]; rowCount: number | null }> {
    const { rows, rowCount } = await connection.query(this.text, this.values(params));
    return { result: withoutHintSuffixes(rows) as TResult[], rowCount };
  }
}

// One class per `@returns` (src/query-returns.ts): codegen constructs each statement as the
// class its .sql declares, so only the method that fits the statement type-checks.

/** `@returns one`: the statement always returns a row. */
export class PostgresOneQuery<TParams, TResult> extends PostgresPreparedQuery<TParams, TResult> {
  readonly returns = 'one' as const;
  /** The row; NoRowError when the statement returned none. */
  async one(params: TParams, connection: PostgresQueryRunner): Promise<TResult> {
    return theRow(this.name, (await this.run(params, connection))[0]);
  }
}

/** `@returns maybe-one`: a row or none. */
export class PostgresMaybeOneQuery<TParams, TResult> extends PostgresPreparedQuery<TParams, TResult> {
  readonly returns = 'maybe-one' as const;
  /** The row, or undefined when there is none. */
  async maybeOne(params: TParams, connection: PostgresQueryRunner): Promise<TResult | undefined> {
    return (await this.run(params, connection))[0];
  }
}

/** `@returns many`: any number of rows. */
export class PostgresManyQuery<TParams, TResult> extends PostgresPreparedQuery<TParams, TResult> {
  readonly returns = 'many' as const;
  /** Every row, in the statement's order. */
  many(params: TParams, connection: PostgresQueryRunner): Promise<TResult[]> {
    return this.run(params, connection);
  }
}

/** `@returns exec`: a write that returns no rows. */
export class PostgresExecQuery<TParams, TResult> extends PostgresPreparedQuery<TParams, TResult> {
  readonly returns = 'exec' as const;
  /** Runs it; the number of rows it wrote (node-postgres's rowCount). */
  async exec(params: TParams, connection: PostgresQueryRunner): Promise<number> {
    return (await this.runWithCounts(params, connection)).rowCount ?? 0;
  }
}
