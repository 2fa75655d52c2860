// The part of a node-postgres pool this package calls, declared structurally. The published
// declarations name these interfaces instead of pg's own types, so a host compiles against
// them without @types/pg (and a SQLite-only host without anything PostgreSQL at all;
// DESIGN §8). At run time the store expects a real pg 8 `Pool`; its type is assignable to
// PostgresPool (the package's own tests pass one everywhere, and test/packaging-hosts.test.ts
// compiles a host that does).

/** What a query resolves to; the package reads only these two fields. */
export interface PostgresQueryResult {
  rows: unknown[];
  rowCount: number | null;
}

/** A query as node-postgres takes it: `name` makes it a named prepared statement. */
export interface PostgresQueryConfig {
  text: string;
  values?: unknown[];
  name?: string;
}

export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  query(config: PostgresQueryConfig): Promise<PostgresQueryResult>;
}

/** A client checked out of the pool (transactions run on one). */
export interface PostgresPoolClient extends PostgresQueryable {
  /** `true` or an error destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
}

/** A host-owned node-postgres `Pool`. */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
}
