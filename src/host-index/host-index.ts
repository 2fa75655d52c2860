// The optional index on the host's messages table (DESIGN §3, docs/host-index.md), the part
// both dialects share: its name, the answer ensureHostIndex() gives, the one error it rejects
// with. The DDL is schema/host-index/<dialect>/; src/{sqlite,postgres}/host-index.ts apply it.
import { errorMessage, SubagentContextError } from '../errors.js';
import type { HostIndexReport } from '../types.js';

export const HOST_INDEX_NAME = 'idx_messages_subagent_candidates';

/**
 * `missing_tables`: no task_session_messages to index. `in_transaction`: called inside the
 * host's open transaction, where the build would commit or roll back with the host's work.
 * `foreign_index`: an index of that name exists with another definition; it is left as it is.
 * `database_error`: a statement failed (the driver's error on `cause`), or PostgreSQL's build
 * did not finish valid. `code` is the contract; messages are for people.
 */
export type HostIndexErrorCode = 'missing_tables' | 'in_transaction' | 'foreign_index' | 'database_error';

export class HostIndexError extends SubagentContextError {
  override readonly name = 'HostIndexError';
  declare readonly code: HostIndexErrorCode;
  constructor(code: HostIndexErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Runs `ensure`, timing it; any failure that is not already a HostIndexError is the database's. */
export async function timedHostIndex(ensure: () => Promise<HostIndexReport['outcome']> | HostIndexReport['outcome']): Promise<HostIndexReport> {
  const started = performance.now();
  try {
    const outcome = await ensure();
    return { index: HOST_INDEX_NAME, outcome, ms: performance.now() - started };
  } catch (err) {
    if (err instanceof HostIndexError) throw err;
    throw new HostIndexError('database_error', `the database failed while ensuring ${HOST_INDEX_NAME}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

export const foreignIndex = (definition: string) =>
  new HostIndexError(
    'foreign_index',
    `an index named ${HOST_INDEX_NAME} exists with another definition (${definition}); it is left as it is: drop or rename it to let the package create its own`,
  );

export const missingMessages = () =>
  new HostIndexError('missing_tables', `missing table task_session_messages: the host index indexes the host's messages, and this database has none`);
