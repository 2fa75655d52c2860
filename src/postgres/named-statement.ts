// The package's hot statements (the live upsert and the batch round) as prepared statements
// whose text is interpolated once, run named while that works and unnamed for good once it
// does not.
//
// Why named: an unnamed statement is parsed and planned by the server on every call (more than it costs
// to execute). node-postgres parses a named statement once per pooled connection and then only
// binds and executes it.
//
// Why not always: node-postgres remembers "parsed" per CLIENT connection, while the statement
// lives on a SERVER connection. Behind a transaction-mode pooler (PgBouncer < 1.21, or any
// version without max_prepared_statements) those are not the same: a Parse lands on a server
// connection that already holds the name (42P05 duplicate_prepared_statement) or a Bind on one
// that never saw it (26000 invalid_sql_statement_name). Both errors are raised before anything
// executes, so the frame is simply retried unnamed and the store stays unnamed from then on
// (createStatementRunner). Inside a transaction such an error aborts it: the caller rolls back
// to its savepoint first (or redoes the whole transaction).
//
// A statement's name carries a hash of its text, so one name always means one text — on any
// server connection, even one shared with another version of this package or another store —
// and executing a statement someone else prepared under that name runs exactly this text.
//
// The text and the parameter order are the generated function's own (precompiled by codegen
// from pgtyped's interpolation), so nothing here duplicates them.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { theRow, type QueryReturns } from '../query-returns.js';
import { withoutHintSuffixes, type PostgresPreparedQuery } from './prepared-query.js';
import { PACKAGE_TYPES } from './type-parsers.js';

export type Queryable = Pick<pg.Pool | pg.ClientBase, 'query'>;

/** PostgreSQL keeps NAMEDATALEN - 1 bytes of a prepared statement's name; longer names collide. */
const MAX_NAME_BYTES = 63;

/** One execution of a statement: its hashed name, its text and its `$n` values. */
export interface BoundStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** One generated statement, ready to run named or unnamed. */
export interface PackageStatement<TParams, TResult = unknown, TReturns extends QueryReturns = QueryReturns> {
  readonly queryName: string;
  /** Its `@returns` (src/query-returns.ts): which runner method fits it. */
  readonly returns: TReturns;
  /** Result rows' type only (never set): what rows() resolves to. */
  readonly resultType?: TResult;
  bind(params: Required<TParams>): BoundStatement;
}

/** `subagent_context.<query>.<first 12 hex digits of sha256(text)>`, at most 63 bytes. */
export function statementName(queryName: string, text: string): string {
  const name = `subagent_context.${queryName}.${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new Error(`prepared statement name ${name} exceeds ${MAX_NAME_BYTES} bytes`);
  return name;
}

export function packageStatement<TParams, TResult, TReturns extends QueryReturns>(
  queryName: string,
  generated: PostgresPreparedQuery<TParams, TResult> & { readonly returns: TReturns },
): PackageStatement<TParams, TResult, TReturns> {
  const name = statementName(queryName, generated.text);
  return {
    queryName,
    returns: generated.returns,
    bind: (params) => ({ name, text: generated.text, values: generated.values(params) }),
  };
}

/** SQLSTATEs meaning "this server connection's prepared statements are not the ones node-postgres thinks". */
const SHARED_CONNECTION_CODES = new Set(['42P05', '26000']);

export function isNamedStatementConflict(err: unknown): boolean {
  return err instanceof Error && SHARED_CONNECTION_CODES.has((err as { code?: unknown }).code as string);
}

/** node-postgres reports null for statements without a count; an INSERT always has one. */
const rowCount = (result: pg.QueryResult): number => result.rowCount ?? 0;

/**
 * What to do when a named execution meets a shared server connection:
 * - a function: undo what the error left behind (ROLLBACK TO the caller's savepoint), then
 *   retry unnamed;
 * - 'retry': nothing to undo (autocommit: the failed statement did nothing), retry unnamed;
 * - 'rethrow': the error aborted a transaction the caller must redo (unnamed, by then).
 */
export type ConflictRecovery = 'retry' | 'rethrow' | (() => Promise<void>);

export interface StatementRunner {
  /** Resolves to the statement's rowCount (rows it wrote), which the writer checks. */
  run<TParams>(statement: PackageStatement<TParams>, params: Required<TParams>, target: Queryable, recovery: ConflictRecovery): Promise<number>;
  /**
   * A read (health's probes and anti-joins): its rows, hint suffixes removed as the generated
   * run() removes them. A conflict is retried unnamed (the failed Parse or Bind read nothing)
   * in autocommit; inside a transaction pass 'rethrow' and redo the transaction.
   */
  rows<TParams, TResult>(
    statement: PackageStatement<TParams, TResult>,
    params: Required<TParams>,
    target: Queryable,
    recovery?: ConflictRecovery,
  ): Promise<TResult[]>;
  /** rows() of a statement declared `@returns one`: its row; NoRowError when none came back. */
  one<TParams, TResult>(
    statement: PackageStatement<TParams, TResult, 'one'>,
    params: Required<TParams>,
    target: Queryable,
    recovery?: ConflictRecovery,
  ): Promise<TResult>;
}

/**
 * One store's statement mode: named (the default) until a conflict shows the server
 * connections are shared, then unnamed for good. `onSwitch` is called once, at the switch.
 */
export function createStatementRunner(options: { named: boolean; onSwitch?(err: Error): void }): StatementRunner {
  let named = options.named;
  async function execute<TParams>(
    statement: PackageStatement<TParams, unknown, QueryReturns>,
    params: Required<TParams>,
    target: Queryable,
    recovery: ConflictRecovery,
  ): Promise<pg.QueryResult> {
    const bound = statement.bind(params);
    if (named) {
      try {
        return await target.query({ name: bound.name, text: bound.text, values: bound.values, types: PACKAGE_TYPES } as pg.QueryConfig);
      } catch (err) {
        if (!isNamedStatementConflict(err)) throw err;
        if (named) {
          named = false;
          options.onSwitch?.(err as Error);
        }
        if (recovery === 'rethrow') throw err;
        if (recovery !== 'retry') await recovery();
      }
    }
    return target.query({ text: bound.text, values: bound.values, types: PACKAGE_TYPES } as pg.QueryConfig);
  }
  const rows = async <TParams, TResult>(
    statement: PackageStatement<TParams, TResult>,
    params: Required<TParams>,
    target: Queryable,
    recovery: ConflictRecovery = 'retry',
  ) => withoutHintSuffixes((await execute(statement, params, target, recovery)).rows as TResult[]);
  return {
    run: async (statement, params, target, recovery) => rowCount(await execute(statement, params, target, recovery)),
    rows,
    one: async (statement, params, target, recovery) => theRow(statement.queryName, (await rows(statement, params, target, recovery))[0]),
  };
}
