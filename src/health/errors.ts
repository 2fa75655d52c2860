// The one error checkHealth() rejects with: the database cannot answer the question. A table
// it reads is missing, or capture_since holds text that is not an instant — states an
// operator must fix, not writer health, so neither is folded into a verdict — or a statement
// failed in the driver (connection refused, permission denied, a read error), in which case
// the driver's error stays on `cause` with its SQLSTATE or SQLite result code — or the
// statements would run a database object the package did not create (`untrusted_object`:
// PostgreSQL's pg_input_is_valid shadowed by another role's, or missing), so they are not run.
// `code` is the contract; messages are for people.
import { SubagentContextError } from '../errors.js';
import type { HealthReport } from '../types.js';

export type HealthCheckErrorCode = 'missing_tables' | 'invalid_capture_since' | 'untrusted_object' | 'database_error';

export class HealthCheckError extends SubagentContextError {
  override readonly name = 'HealthCheckError';
  declare readonly code: HealthCheckErrorCode;
  /** The activation keys as read, when the failure came after reading them (invalid_capture_since). */
  readonly keys?: HealthReport['keys'];

  constructor(code: HealthCheckErrorCode, message: string, options: { keys?: HealthReport['keys']; cause?: unknown } = {}) {
    super(code, message, 'cause' in options ? { cause: options.cause } : undefined);
    this.keys = options.keys;
  }
}
