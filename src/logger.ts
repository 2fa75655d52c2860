// The package's one logging policy. The default logger is silent except WARN, which goes to
// stderr as one JSON line, because a WARN here is the only trace a swallowed failure leaves
// (AC-20, AC-27). Every call the package makes goes through guardedLogger(): a host's logger
// that throws, rejects, or lacks a method never breaks the store, fails a frame, turns a
// migration step into a rejection, or reads as a database error in checkHealth().
import type { Logger, StoreOptions } from './types.js';
import { tagOf } from './errors.js';

export const defaultLogger: Logger = {
  warn(fields, msg) {
    process.stderr.write(`${JSON.stringify({ level: 'warn', pkg: 'subagent-context', msg, ...fields })}\n`);
  },
};

/**
 * `logger` with every method present and guarded: each call reaches the host's method (as a
 * method, so `this` is the host's logger) when it is a function, and whatever it throws, or an
 * async method's rejection, is dropped. Logging is the trace of a failure, never a new one.
 */
export function guardedLogger(logger: Logger | undefined): Required<Logger> {
  const call = (level: keyof Logger) => (fields: object, msg: string) => {
    try {
      const method = (logger as Partial<Record<string, unknown>> | undefined)?.[level];
      if (typeof method !== 'function') return;
      const result: unknown = method.call(logger, fields, msg);
      if (typeof (result as { then?: unknown } | null)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, () => undefined);
    } catch {
      // a throwing logger must not turn a logged failure into a thrown one
    }
  };
  return { warn: call('warn'), info: call('info'), error: call('error'), debug: call('debug') };
}

/** The logger a store logs through: the host's (StoreOptions.logger) or the default, guarded. */
export const storeLogger = (options: StoreOptions | undefined): Required<Logger> => guardedLogger(options?.logger ?? defaultLogger);

/**
 * A compact, log-safe description of an error: message plus SQLSTATE / SQLite code. Total: it
 * describes whatever a frame's getter, a host's client or a driver threw, and a value with no
 * string form (Object.create(null), an Error whose `message` getter throws, a revoked Proxy)
 * must still give a line, never a throw, or the failure it reports would become a rejection of
 * recordFrame/recordFrames (AC-27).
 */
export function describeError(err: unknown): { error: string; code?: string } {
  try {
    if (err instanceof Error) {
      const { message, code } = err as Error & { code?: unknown };
      const error = typeof message === 'string' ? message : String(message);
      return typeof code === 'string' ? { error, code } : { error };
    }
    return { error: String(err) };
  } catch {
    return { error: `${tagOf(err)} (no string form)` };
  }
}
