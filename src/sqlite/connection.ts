// The part of a better-sqlite3 connection this package calls, declared structurally. The
// published declarations name these interfaces instead of better-sqlite3's own types, so a
// host compiles against them without @types/better-sqlite3 (and a PostgreSQL-only host
// without anything SQLite at all; DESIGN §8). At run time the store expects a real
// better-sqlite3 12 `Database`; its type is assignable to SqliteConnection (the package's own
// tests pass one everywhere, and test/packaging-hosts.test.ts compiles a host that does).

/** A prepared statement: what SqlitePreparedQuery calls on it. */
export interface SqliteStatement {
  /** True when the statement returns rows. */
  readonly reader: boolean;
  /** Integers come back as bigint (int64 metrics survive beyond 2^53). */
  safeIntegers(toggle?: boolean): this;
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A host-owned better-sqlite3 `Database`. */
export interface SqliteConnection {
  prepare(source: string): SqliteStatement;
  /** Runs SQL text without parameters (transaction control, DDL scripts). */
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean;
  /** better-sqlite3's transaction wrapper: the store's own transactions, a savepoint inside an open one. */
  transaction(fn: (body: () => unknown) => unknown): unknown;
}
