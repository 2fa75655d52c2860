// A frame whose session the host has not saved (yet), or has deleted: task_session_subagents'
// foreign key to task_sessions refuses the row (AC-16). The frame's outcome is 'failed', as for
// any refused write (AC-26: attempted = persisted + skipped_no_identity + failed), but the
// WARN says what happened in the store's words, code `unknown_session`, with the driver's
// error on `cause`: a host that records a subagent before committing its session row (or
// outside the transaction that inserts it) loses that frame, and docs/host-tables.md says how to
// order the two. Nothing is retried: the next frame of the same tool call, once the session is
// saved, writes the row.
import { SubagentContextError } from './errors.js';

/** PostgreSQL foreign_key_violation; SQLite's extended code (only with PRAGMA foreign_keys = ON). */
const FOREIGN_KEY_CODES = new Set(['23503', 'SQLITE_CONSTRAINT_FOREIGNKEY']);

export const UNKNOWN_SESSION = 'unknown_session';

/**
 * The package's table has one foreign key, task_session_id → task_sessions(id); a PostgreSQL
 * violation names its constraint, which must be on that table (a host trigger writing to a
 * table of its own can violate a key of that table: that is not an unknown session).
 */
function isUnknownSession(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, table } = err as { code?: unknown; table?: unknown };
  if (typeof code !== 'string' || !FOREIGN_KEY_CODES.has(code)) return false;
  return table === undefined || table === 'task_session_subagents';
}

/** A frame's session is not in task_sessions: the error the store reports, `cause` the driver's when it has one. */
export function unknownSessionError(sessionId: string, cause?: unknown): SubagentContextError {
  return new SubagentContextError(
    UNKNOWN_SESSION,
    `session ${JSON.stringify(sessionId)} is not in task_sessions (the host has not saved it yet, or deleted it): the subagent row was not written`,
    cause === undefined ? undefined : { cause },
  );
}

/** The write's error as the store reports it: an unknown session in plain words, anything else as it came. */
export function explainWriteError(err: unknown, sessionId: string): unknown {
  return isUnknownSession(err) ? unknownSessionError(sessionId, err) : err;
}
