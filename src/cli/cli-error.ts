// Every failure the CLI reports becomes ONE line and an exit code, never a stack trace.
// Errors are classified by what they carry (our own classes, a Node system error code, a
// PostgreSQL SQLSTATE, a SQLite result code), never by matching message text.
import { HealthCheckError } from '../health/errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const databaseError = (message: string) => new CliError(EXIT.database, message);

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** The most specific message an error carries (AggregateError from a multi-address connect has none). */
function messageOf(err: Error): string {
  if (err.message) return err.message;
  const inner = (err as { errors?: unknown[] }).errors?.find((e): e is Error => e instanceof Error && e.message !== '');
  return inner?.message ?? err.name;
}

/** Classifies a failure; `whileConnecting` says it came from opening the database, where every failure is the database's. */
export function toCliError(err: unknown, whileConnecting = false): CliError {
  if (err instanceof CliError) return new CliError(err.exitCode, oneLine(err.message));
  if (err instanceof HealthCheckError) return databaseError(oneLine(err.message));
  if (!(err instanceof Error)) return new CliError(EXIT.internal, `unexpected error: ${oneLine(String(err))}`);
  const code = (err as { code?: unknown }).code;
  const message = oneLine(messageOf(err));
  if (typeof code === 'string') {
    if (/^SQLITE_/.test(code)) return databaseError(`SQLite ${code}: ${message}`);
    if (/^[0-9A-Z]{5}$/.test(code)) return databaseError(`PostgreSQL ${code}: ${message}`);
    if (/^E[A-Z]+$/.test(code)) return databaseError(`cannot reach the database (${code}): ${message}`);
  }
  // node-postgres reports some connection failures (a timeout, a server closing the
  // socket) without a code: while connecting, any failure is the database's.
  if (whileConnecting) return databaseError(`cannot open the database: ${message}`);
  return new CliError(EXIT.internal, `unexpected error: ${message}`);
}
