// What store.report() rejects with: a SubagentContextError whose `code` says why (the contract
// a host branches on; messages are for people). The options are checked before any statement
// runs (invalid_report_*, ./options.ts); a table the report reads is missing (missing_tables:
// run `subagent-context migrate`); or a statement failed in the driver (database_error, the
// driver's error on `cause` with its SQLSTATE or SQLite result code) — checkHealth()'s policy
// (src/health/errors.ts), so the CLI reports both alike.
import { errorMessage, SubagentContextError } from '../errors.js';

export type ReportErrorCode = 'invalid_report_options' | 'invalid_report_window' | 'invalid_report_scope' | 'missing_tables' | 'database_error';

/** The codes caused by the caller's arguments, not by the database. */
export const REPORT_USAGE_CODES: readonly ReportErrorCode[] = ['invalid_report_options', 'invalid_report_window', 'invalid_report_scope'];

export const reportError = (code: ReportErrorCode, message: string, options?: { cause?: unknown }) => new SubagentContextError(code, message, options);

/** A rejection from the report's reads as report() rejects: coded errors as they are, anything else as database_error. */
export function asReportError(err: unknown): SubagentContextError {
  if (err instanceof SubagentContextError) return err;
  return reportError('database_error', `the database failed during the report: ${errorMessage(err)}`, { cause: err });
}
