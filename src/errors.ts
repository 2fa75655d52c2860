// The package's one error base. Every error the package raises on purpose derives from it and
// carries a stable `code` (the contract a host branches on; messages are for people). An error
// that wraps a driver's error keeps that error on `cause`, so the SQLSTATE or SQLite result
// code is never lost behind our wording.

export class SubagentContextError extends Error {
  override name = 'SubagentContextError';

  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Any thrown value as an Error: an Error is returned as is; anything else (a string, a
 * rejected non-Error) is wrapped with the value on `cause`, so nothing is lost. Never throws:
 * a value with no string form (a null-prototype object, a revoked Proxy, a throwing
 * toString) is named by what can be read of it, so a writer's catch cannot itself throw and
 * fail the frames around the one that failed.
 */
export function toError(value: unknown): Error {
  try {
    if (value instanceof Error) return value;
    return new Error(String(value), { cause: value });
  } catch {
    return new Error(`a thrown ${typeof value} with no string form (${tagOf(value)})`, { cause: value });
  }
}

/** `[object Object]`-style tag, or the value's type when even that cannot be read (a Proxy's traps). */
export function tagOf(value: unknown): string {
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return typeof value;
  }
}

/**
 * The most specific message a thrown value carries, for a wrapping error's wording: an
 * AggregateError (node-postgres connecting to several addresses) has an empty message of its
 * own, so its first inner error's is used.
 */
export function errorMessage(value: unknown): string {
  if (!(value instanceof Error)) return String(value);
  if (value.message) return value.message;
  const inner = (value as { errors?: unknown[] }).errors?.find((e): e is Error => e instanceof Error && e.message !== '');
  return inner?.message ?? value.name;
}

/**
 * A statement declared `@returns one` in its .sql file returned no row (`.one()` of a generated
 * query, src/query-returns.ts). Every such statement returns a row by construction (an aggregate,
 * a row of scalar subqueries, a catalog probe), so this is a defect or a database that is not
 * what the statement assumes, never an empty result to read as "nothing". Hence no
 * SubagentContextError and no `code` of the contract: checkHealth() and report() report it as
 * any unexpected failure of a read (`database_error`, this error on `cause`).
 */
export class NoRowError extends Error {
  override name = 'NoRowError';

  constructor(readonly query: string) {
    super(`${query} returned no row (its .sql declares \`@returns one\`)`);
  }
}
