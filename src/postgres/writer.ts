// The PostgreSQL live writer: node-postgres pool, generated typed functions (generated/postgres).
// BIGINT parameters travel as decimal text, timestamps as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC
// text typed TIMESTAMP by the statement, so no result depends on the session TimeZone.
//
// The upserts run as named prepared statements, parsed once per pooled connection, until a
// transaction-mode pooler shows the server connections are shared; then unnamed, for good,
// with no frame lost (./named-statement.ts).
//
// Where a write goes (DESIGN §8 "Host transactions"):
// - no client: the store's own pool; recordFrame autocommits, recordFrames is one transaction;
// - a host client inside its open transaction: the write joins it, inside a SAVEPOINT, so a
//   frame the database rejects is undone alone and the host's transaction stays usable. The
//   store never issues BEGIN/COMMIT/ROLLBACK there: the host's COMMIT makes the rows durable,
//   its ROLLBACK removes them with its own. A client outside a transaction fails the frame
//   (the SAVEPOINT is refused, 25P01): writing it anyway would silently give up the atomicity
//   the host asked for. The store's calls on one host client run one at a time (onHostClient).
import type pg from 'pg';
import { setSubagentUsage, upsertSubagentContext, upsertSubagentContextsBatch, type IUpsertSubagentContextParams } from '../../generated/postgres/index.js';
import { createColumnTimeFormatter } from '../column-time.js';
import type { WriterAdapter } from '../dialect.js';
import { SubagentContextError, toError } from '../errors.js';
import { int64Text, upsertParameters, type UpsertInput } from '../frame-normalization.js';
import { requireRowsWritten } from '../no-row-written.js';
import { usageParameters } from '../usage-normalization.js';
import { batchRounds, roundParameter, type PendingFrame } from './batch-rounds.js';
import { isNamedStatementConflict, packageStatement, type ConflictRecovery, type Queryable, type StatementRunner } from './named-statement.js';
import { BEGIN_READ_COMMITTED, retryAutocommitted, withSavepoint, withTransaction } from './transaction.js';

const upsertStatement = packageStatement('upsert_subagent_context', upsertSubagentContext);
const upsertBatchStatement = packageStatement('upsert_subagent_contexts_batch', upsertSubagentContextsBatch);

/** Savepoint names; the package's prefix keeps them apart from a host's own. */
const FRAME_SAVEPOINT = 'subagent_context_frame';
const BATCH_SAVEPOINT = 'subagent_context_batch';
const USAGE_SAVEPOINT = 'subagent_context_usage';

/**
 * The store's work on each host client still running, as a promise that settles when it ends.
 * Calls a host makes at once on one client (Promise.all of recordFrame) would otherwise
 * interleave on its connection: one frame's failed statement aborts the transaction under
 * another's, and ROLLBACK TO lands on whichever savepoint of that name is newest, so good
 * frames fail with the bad one (or a released one stays 'persisted' and is rolled back). Run
 * one after another, each call's savepoint is the innermost while it runs, so a rejected frame
 * is undone alone. Module-wide: two stores sharing a client take turns too.
 */
const busyClients = new WeakMap<object, Promise<void>>();

/** `work` on `client` once the store's earlier work there has ended; at once when none is running. */
function onHostClient<T>(client: Queryable, work: () => Promise<T>): Promise<T> {
  const before = busyClients.get(client);
  const result = before === undefined ? work() : before.then(work);
  const done = (): void => {
    if (busyClients.get(client) === after) busyClients.delete(client);
  };
  const after = result.then(done, done);
  busyClients.set(client, after);
  return result;
}

export interface PostgresWriterOptions {
  /** The store's statement mode, shared with its health check (./named-statement.ts). */
  readonly statements: StatementRunner;
}

/** The `client` of recordFrame(frame, { client }), checked before anything is sent. */
function hostClient(client: unknown): Queryable {
  if (typeof (client as { query?: unknown } | null)?.query !== 'function') {
    throw new SubagentContextError(
      'invalid_client',
      'the client option must be a node-postgres client (pg.PoolClient or pg.Client) inside an open transaction',
    );
  }
  return client as Queryable;
}

export function createPostgresWriter(pool: pg.Pool, options: PostgresWriterOptions): WriterAdapter {
  const columnTime = createColumnTimeFormatter('');
  const { statements } = options;

  const upsertOne = async (input: UpsertInput, observedAtNs: bigint, target: Queryable, recovery: ConflictRecovery): Promise<void> => {
    const params: Required<IUpsertSubagentContextParams> = upsertParameters(input, columnTime(observedAtNs), int64Text);
    // rowCount 0: a host trigger swallowed the statement (../no-row-written.ts).
    requireRowsWritten(1, await statements.run(upsertStatement, params, target, recovery));
  };

  /** One frame in its own savepoint: it commits with the transaction or is undone alone. */
  const upsertInSavepoint = (input: UpsertInput, observedAtNs: bigint, client: Queryable) =>
    withSavepoint(client, FRAME_SAVEPOINT, (undo) => upsertOne(input, observedAtNs, client, undo));

  /**
   * The optimistic batch: one statement per round (./batch-rounds.ts), so a burst costs a few
   * round trips instead of one per frame. A named-statement conflict aborts the enclosing
   * transaction (earlier rounds included), so it is rethrown and the whole attempt redone.
   * A round that wrote fewer rows than it carried frames had one swallowed by a host trigger;
   * which one the count cannot say, so the attempt fails and each frame is redone alone.
   */
  const allRounds = async (batch: readonly PendingFrame[], client: Queryable) => {
    for (const round of batchRounds(batch)) {
      requireRowsWritten(round.length, await statements.run(upsertBatchStatement, { frames: roundParameter(round, columnTime) }, client, 'rethrow'));
    }
  };

  /** Each frame isolated: entry i is null when frame i's savepoint was released, else its error. */
  const eachInSavepoint = async (batch: readonly PendingFrame[], client: Queryable) => {
    const results: (Error | null)[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      try {
        await upsertInSavepoint(batch[i].input, batch[i].observedAtNs, client);
        results[i] = null;
      } catch (err) {
        results[i] = toError(err);
      }
    }
    return results;
  };

  /**
   * `scope` is a transaction (the store's own) or a savepoint (inside the host's). The rounds
   * run first, redone once if a conflict switched the store to unnamed statements; if a frame
   * failed, nothing of that attempt survives, so the batch is redone with a savepoint per frame,
   * where each frame commits or fails on its own.
   */
  const upsertBatchIn = async (
    batch: readonly PendingFrame[],
    scope: <T>(fn: (client: Queryable) => Promise<T>) => Promise<T>,
    each: (fn: (client: Queryable) => Promise<(Error | null)[]>) => Promise<(Error | null)[]>,
  ): Promise<(Error | null)[]> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await scope((client) => allRounds(batch, client));
        return batch.map(() => null);
      } catch (err) {
        if (!isNamedStatementConflict(err)) break;
      }
    }
    try {
      return await each((client) => eachInSavepoint(batch, client));
    } catch (err) {
      const failure = toError(err); // the transaction itself failed: nothing in it survives
      return batch.map(() => failure);
    }
  };

  return {
    async upsert(input, observedAtNs, client) {
      // Autocommitted on the pool: retried on a serialization failure (./transaction.ts).
      if (client === undefined || client === null) return retryAutocommitted(() => upsertOne(input, observedAtNs, pool, 'retry'));
      const host = hostClient(client);
      await onHostClient(host, () => upsertInSavepoint(input, observedAtNs, host));
    },
    async upsertBatch(batch, client) {
      if (client === undefined || client === null) {
        const inTransaction = <T>(fn: (c: Queryable) => Promise<T>) => withTransaction(pool, fn, BEGIN_READ_COMMITTED);
        return upsertBatchIn(batch, inTransaction, inTransaction);
      }
      const host = hostClient(client);
      return onHostClient(host, () =>
        upsertBatchIn(
          batch,
          (fn) => withSavepoint(host, BATCH_SAVEPOINT, () => fn(host)),
          (fn) => fn(host),
        ),
      );
    },
    // Rare (one per subagent's end), so unnamed statements: each ledger row autocommitted on
    // the pool, or in a savepoint of its own in the host's transaction.
    async setUsage(rows, client) {
      const host = client === undefined || client === null ? undefined : hostClient(client);
      const writeAll = async () => {
        const results: (Error | null)[] = [];
        for (const write of rows) {
          const params = usageParameters(write, columnTime(write.observedAtNs), int64Text);
          try {
            if (host) await withSavepoint(host, USAGE_SAVEPOINT, () => setSubagentUsage.exec(params, host));
            else await retryAutocommitted(() => setSubagentUsage.exec(params, pool));
            results.push(null);
          } catch (err) {
            results.push(toError(err));
          }
        }
        return results;
      };
      return host ? onHostClient(host, writeAll) : writeAll();
    },
  };
}
