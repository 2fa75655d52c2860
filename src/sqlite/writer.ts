// The SQLite live writer: better-sqlite3 is synchronous, so each call runs to completion
// before it returns, and hands back its result as a settled write (../settled-write.ts):
// the store goes on without awaiting, so a frame's ledger row is written in the same
// synchronous scope as its row — inside a host's db.transaction(), which ends at the first
// await. The upsert is the generated statement (generated/sqlite), prepared once per
// connection and bound directly.
//
// Host transactions (DESIGN §8): the store writes on the host's own connection, so a write
// joins whatever transaction the host holds open there (`db.inTransaction`). Then each call
// runs inside a SAVEPOINT and never ends the host's transaction: a frame the database rejects
// is undone alone and the host's transaction commits the rest. RecordOptions.client, if given,
// must be this same connection: a write through this one while the host's transaction holds
// another would only wait out the busy timeout and fail.
import type { Database } from 'better-sqlite3';
import { readSessionPresent, setSubagentUsage, upsertSubagentContext, type IUpsertSubagentContextParams } from '../../generated/sqlite/index.js';
import { createColumnTimeFormatter } from '../column-time.js';
import type { WriterAdapter } from '../dialect.js';
import { SubagentContextError, toError } from '../errors.js';
import { upsertParameters, type UpsertInput } from '../frame-normalization.js';
import { requireRowsWritten } from '../no-row-written.js';
import { settledFailure, settledWrite } from '../settled-write.js';
import { usageParameters } from '../usage-normalization.js';
import { unknownSessionError } from '../unknown-session.js';
import { foreignKeysDeferred, inWriteScope } from './transaction.js';

/** Every successful upsert's result: one shared settled promise, no allocation per frame. */
const WRITTEN = settledWrite(undefined);

/** RecordOptions.client on SQLite: absent, or the store's own connection. */
function requireOwnConnection(db: Database, client: unknown): void {
  if (client !== undefined && client !== null && client !== db) {
    throw new SubagentContextError('invalid_client', "the client option must be this store's own better-sqlite3 Database (or be omitted)");
  }
}

export function createSqliteWriter(db: Database): WriterAdapter {
  // DESIGN §4: the package writes SQLite timestamps fixed-width 'YYYY-MM-DD HH:MM:SS.ffffff+00:00'.
  const columnTime = createColumnTimeFormatter('+00:00');

  const asIs = (n: bigint | null) => n; // better-sqlite3 binds a bigint as an exact INTEGER
  const upsertOne = (input: UpsertInput, observedAtNs: bigint): void => {
    const params: Required<IUpsertSubagentContextParams> = upsertParameters(input, columnTime(observedAtNs), asIs);
    // `changes` is 0 when a host trigger swallowed the statement (../no-row-written.ts).
    requireRowsWritten(1, upsertSubagentContext.statement(db).run(params).changes);
  };

  /**
   * Where the host deferred foreign keys (./transaction.ts): the row, then its session's key
   * tested as SQLite tests it at a statement's end, after the host's triggers (a BEFORE INSERT
   * trigger may insert the session: tested first, such a frame failed; a second review,
   * 2026-12), in a savepoint of its own, so a failing test undoes this row alone.
   */
  const upsertChecked = (input: UpsertInput, observedAtNs: bigint): void =>
    inWriteScope(db, () => {
      upsertOne(input, observedAtNs);
      if (readSessionPresent.one({ id: input.sessionId }, db).present !== 1n) throw unknownSessionError(input.sessionId);
    });

  return {
    upsert(input, observedAtNs, client) {
      try {
        requireOwnConnection(db, client);
        // Autocommitted on its own; inside the host's transaction, a savepoint also undoes what
        // a failing statement may leave behind (a trigger's RAISE(FAIL) keeps earlier changes).
        // The session's key tested now, even where the host deferred foreign keys (./transaction.ts).
        if (!db.inTransaction) upsertOne(input, observedAtNs);
        else if (foreignKeysDeferred(db)) upsertChecked(input, observedAtNs);
        else inWriteScope(db, () => upsertOne(input, observedAtNs));
        return WRITTEN;
      } catch (err) {
        return settledFailure(err);
      }
    },
    // The single upsert per frame inside one transaction, not the batch statement: in-process
    // statements cost microseconds: measured 2.4x faster than one JSON statement per burst, so
    // SQLite has no batch statement (PostgreSQL's saves a round trip per frame).
    upsertBatch(batch, client) {
      try {
        requireOwnConnection(db, client);
      } catch (err) {
        return settledFailure(err);
      }
      const results: (Error | null)[] = new Array(batch.length);
      try {
        const write = foreignKeysDeferred(db) ? upsertChecked : upsertOne; // set before a transaction, it holds for this one too
        inWriteScope(db, () => {
          for (let i = 0; i < batch.length; i++) {
            try {
              write(batch[i].input, batch[i].observedAtNs);
              results[i] = null;
            } catch (err) {
              // A failing statement is undone alone (ABORT) and the others go on. If SQLite
              // rolled the whole transaction back instead (RAISE(ROLLBACK), I/O error, full
              // disk), nothing in it survives: every frame fails below.
              if (!db.inTransaction) throw err;
              results[i] = toError(err);
            }
          }
        });
        return settledWrite(results);
      } catch (err) {
        const failure = toError(err);
        return settledWrite(batch.map(() => failure));
      }
    },
    // Each ledger row on its own: autocommitted, or a savepoint in the open transaction. Only an
    // error that makes SQLite end the whole transaction (a full disk, RAISE(ROLLBACK)) could
    // reach the rows written before it, and that error ends the host's transaction anyway.
    setUsage(rows, client) {
      try {
        requireOwnConnection(db, client);
      } catch (err) {
        return settledFailure(err);
      }
      return settledWrite(
        rows.map((write) => {
          try {
            const run = () => void setSubagentUsage.exec(usageParameters(write, columnTime(write.observedAtNs), asIs), db);
            if (db.inTransaction) inWriteScope(db, run);
            else run();
            return null;
          } catch (err) {
            return toError(err);
          }
        }),
      );
    },
  };
}
