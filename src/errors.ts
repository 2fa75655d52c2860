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
 * rejected non-Error) is wrapped with the value on `cause`, so nothing is lost.
 */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(String(value), { cause: value });
}
