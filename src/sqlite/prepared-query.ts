// Runtime for the typed SQLite functions in generated/sqlite/: the counterpart of
// @pgtyped/runtime's PreparedQuery. Statements are prepared once per connection and cached;
// integers come back as bigint (safeIntegers) so int64 metrics survive beyond 2^53.
// Connections and statements are typed structurally (./connection.ts), so the declarations
// of every generated SQLite function stay free of better-sqlite3's types.
import { theRow } from '../query-returns.js';
import type { SqliteConnection, SqliteStatement } from './connection.js';

/** What better-sqlite3 can bind: numbers, strings, bigints, buffers and null. */
export type SqliteBindValue = string | number | bigint | Buffer | null;
/** A result value whose type SQLite cannot know ahead of time (an expression column). */
export type SqliteValue = string | number | bigint | Buffer;

const cache = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();

export class SqlitePreparedQuery<TParams, TResult> {
  constructor(
    /** Query name, as in the `@name` annotation. */
    readonly name: string,
    /** The statement with `@name` parameters, as sent to SQLite. */
    readonly sql: string,
    /** Every parameter the statement names; absent values bind as NULL. */
    readonly paramNames: readonly string[],
  ) {}

  /** The cached prepared statement for this connection (benchmarks use it as the ceiling). */
  statement(db: SqliteConnection): SqliteStatement {
    let statements = cache.get(db);
    if (!statements) cache.set(db, (statements = new Map()));
    let stmt = statements.get(this.name);
    if (!stmt) {
      stmt = db.prepare(this.sql);
      if (stmt.reader) stmt.safeIntegers(true);
      statements.set(this.name, stmt);
    }
    return stmt;
  }

  private bind(params: TParams): Record<string, unknown> {
    const source = params as Record<string, unknown>;
    const bound: Record<string, unknown> = {};
    for (const name of this.paramNames) bound[name] = source[name] ?? null;
    return bound;
  }

  /** Runs a statement that returns rows and returns all of them. */
  all(params: TParams, db: SqliteConnection): TResult[] {
    return this.statement(db).all(this.bind(params)) as TResult[];
  }

  /** Runs a statement that returns rows and returns the first, if any. */
  get(params: TParams, db: SqliteConnection): TResult | undefined {
    return this.statement(db).get(this.bind(params)) as TResult | undefined;
  }

  /** Runs a statement for its effect; `changes` counts the rows it wrote. */
  run(params: TParams, db: SqliteConnection): { changes: number } {
    const info = this.statement(db).run(this.bind(params));
    return { changes: info.changes };
  }
}

// One class per `@returns` (src/query-returns.ts): codegen constructs each statement as the
// class its .sql declares, so only the method that fits the statement type-checks.

/** `@returns one`: the statement always returns a row. */
export class SqliteOneQuery<TParams, TResult> extends SqlitePreparedQuery<TParams, TResult> {
  readonly returns = 'one' as const;
  /** The row; NoRowError when the statement returned none. */
  one(params: TParams, db: SqliteConnection): TResult {
    return theRow(this.name, this.get(params, db));
  }
}

/** `@returns maybe-one`: a row or none. */
export class SqliteMaybeOneQuery<TParams, TResult> extends SqlitePreparedQuery<TParams, TResult> {
  readonly returns = 'maybe-one' as const;
  /** The row, or undefined when there is none. */
  maybeOne(params: TParams, db: SqliteConnection): TResult | undefined {
    return this.get(params, db);
  }
}

/** `@returns many`: any number of rows. */
export class SqliteManyQuery<TParams, TResult> extends SqlitePreparedQuery<TParams, TResult> {
  readonly returns = 'many' as const;
  /** Every row, in the statement's order. */
  many(params: TParams, db: SqliteConnection): TResult[] {
    return this.all(params, db);
  }
}

/** `@returns exec`: a write that returns no rows. */
export class SqliteExecQuery<TParams, TResult> extends SqlitePreparedQuery<TParams, TResult> {
  readonly returns = 'exec' as const;
  /** Runs it; the number of rows it wrote. */
  exec(params: TParams, db: SqliteConnection): number {
    return this.run(params, db).changes;
  }
}
