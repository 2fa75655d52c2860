// The default logger: silent except WARN, which goes to stderr as one JSON line, because a
// WARN here is the only trace a swallowed failure leaves (AC-20, AC-27).
import type { Logger } from './types.js';

export const defaultLogger: Logger = {
  warn(fields, msg) {
    process.stderr.write(`${JSON.stringify({ level: 'warn', pkg: 'subagent-context', msg, ...fields })}\n`);
  },
};

/** A compact, log-safe description of an error: message plus SQLSTATE / SQLite code. */
export function describeError(err: unknown): { error: string; code?: string } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? { error: err.message, code } : { error: err.message };
  }
  return { error: String(err) };
}
