// Every failure the CLI reports becomes ONE line and an exit code, never a stack trace.
// Errors are classified by what they carry (our own classes, a Node system error code, a
// PostgreSQL SQLSTATE, a SQLite result code), never by matching message text. A driver's
// error wrapped by the package (checkHealth()'s and report()'s `database_error`) is classified by
// the driver's error on its `cause`, and every CliError built from a caught error keeps it on `cause`.
import { errorMessage, SubagentContextError } from '../errors.js';
import { HealthCheckError } from '../health/errors.js';
import { HostIndexError } from '../host-index/host-index.js';
import { EXIT } from './exit-codes.js';

/** The failures the CLI ends with, by exit status. */
const CODE_OF_EXIT = {
  [EXIT.usage]: 'usage_error',
  [EXIT.database]: 'database_error',
  [EXIT.driverMissing]: 'driver_missing',
  [EXIT.internal]: 'internal_error',
  [EXIT.output]: 'output_error',
} as const;
export type CliErrorExit = keyof typeof CODE_OF_EXIT;
export type CliErrorCode = (typeof CODE_OF_EXIT)[CliErrorExit];

export class CliError extends SubagentContextError {
  override readonly name = 'CliError';
  declare readonly code: CliErrorCode;

  constructor(
    readonly exitCode: CliErrorExit,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(CODE_OF_EXIT[exitCode], message, options);
  }
}

export const usageError = (message: string, cause?: unknown) => new CliError(EXIT.usage, message, cause === undefined ? undefined : { cause });
export const databaseError = (message: string, cause?: unknown) => new CliError(EXIT.database, message, cause === undefined ? undefined : { cause });

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/**
 * A driver's failure, by the code it carries; null when it carries none we know. `caught` is
 * what the CLI caught (the driver's error, or the package's error wrapping it): it goes on
 * `cause`, so the whole chain down to the driver stays inspectable.
 */
function driverFailure(err: unknown, caught: unknown = err): CliError | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return null;
  const message = oneLine(errorMessage(err));
  if (/^SQLITE_/.test(code)) return databaseError(`SQLite ${code}: ${message}`, caught);
  if (/^[0-9A-Z]{5}$/.test(code)) return databaseError(`PostgreSQL ${code}: ${message}`, caught);
  if (/^E[A-Z]+$/.test(code)) return databaseError(`cannot reach the database (${code}): ${message}`, caught);
  return null;
}

/**
 * A coded rejection of checkHealth() or report() (missing tables, a key that is not an instant,
 * a driver failure), as the database's: a statement that failed inside either reads like the
 * same failure outside it, and the package's error stays on `cause`.
 */
export function readerFailure(err: SubagentContextError): CliError {
  return (err.code === 'database_error' ? driverFailure(err.cause, err) : null) ?? databaseError(oneLine(err.message), err);
}

/** Classifies a failure; `whileConnecting` says it came from opening the database, where every failure is the database's. */
export function toCliError(err: unknown, whileConnecting = false): CliError {
  if (err instanceof CliError) {
    const line = oneLine(err.message);
    return line === err.message ? err : new CliError(err.exitCode, line, { cause: err });
  }
  if (err instanceof HealthCheckError || err instanceof HostIndexError) return readerFailure(err);
  if (!(err instanceof Error)) return new CliError(EXIT.internal, `unexpected error: ${oneLine(String(err))}`, { cause: err });
  const driver = driverFailure(err);
  if (driver) return driver;
  const message = oneLine(errorMessage(err));
  // node-postgres reports some connection failures (a timeout, a server closing the
  // socket) without a code: while connecting, any failure is the database's.
  if (whileConnecting) return databaseError(`cannot open the database: ${message}`, err);
  return new CliError(EXIT.internal, `unexpected error: ${message}`, { cause: err });
}
