// The one error checkHealth() rejects with when the database cannot answer the question:
// a table it reads is missing, or capture_since holds text that is not an instant. Both are
// states an operator must fix, not writer health, so neither is folded into a verdict.
// `code` is the contract; messages are for people.
import type { HealthReport } from '../types.js';

export type HealthCheckErrorCode = 'missing_tables' | 'invalid_capture_since';

export class HealthCheckError extends Error {
  override readonly name = 'HealthCheckError';

  constructor(
    readonly code: HealthCheckErrorCode,
    message: string,
    /** The activation keys as read, when the failure came after reading them. */
    readonly keys?: HealthReport['keys'],
  ) {
    super(message);
  }
}
