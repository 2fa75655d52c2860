// The PostgreSQL live writer: node-postgres pool, pgtyped functions (generated/postgres).
// BIGINT parameters travel as decimal text, timestamps as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC
// text typed TIMESTAMP by the statement, so no result depends on the session TimeZone.
//
// The upsert runs as a named prepared statement (./named-statement.ts), parsed once per pooled
// connection. (A host behind PgBouncer in transaction mode needs PgBouncer >= 1.21, which
// tracks protocol-level prepared statements.)
import type pg from 'pg';
import { upsertSubagentContext, upsertSubagentContextsBatch, type IUpsertSubagentContextParams } from '../../generated/postgres/index.js';
import { createColumnTimeFormatter } from '../column-time.js';
import type { WriterAdapter } from '../dialect.js';
import { toError } from '../errors.js';
import { int64Text, upsertParameters, type UpsertInput } from '../frame-normalization.js';
import { batchRounds, roundParameter } from './batch-rounds.js';
import { namedStatement } from './named-statement.js';
import { withTransaction } from './transaction.js';

/** The upsert as a named statement; the name is namespaced so it cannot clash with a host's own. */
const upsertNamed = namedStatement('subagent_context.upsert_subagent_context', upsertSubagentContext);
const upsertBatchNamed = namedStatement('subagent_context.upsert_subagent_contexts_batch', upsertSubagentContextsBatch);

export function createPostgresWriter(pool: pg.Pool): WriterAdapter {
  const columnTime = createColumnTimeFormatter('');

  const upsertOne = (input: UpsertInput, observedAtNs: bigint, target: pg.Pool | pg.PoolClient) => {
    const params: Required<IUpsertSubagentContextParams> = upsertParameters(input, columnTime(observedAtNs), int64Text);
    return upsertNamed(params, target);
  };

  return {
    async upsert(input, observedAtNs) {
      await upsertOne(input, observedAtNs, pool);
    },
    async upsertBatch(batch) {
      // Optimistic path: the whole batch in one transaction, one statement per round
      // (./batch-rounds.ts), so a burst costs a few round trips instead of one per frame.
      try {
        await withTransaction(pool, async (client) => {
          for (const round of batchRounds(batch)) await upsertBatchNamed({ frames: roundParameter(round, columnTime) }, client);
        });
        return batch.map(() => null);
      } catch {
        // A frame failed and aborted the transaction (or the commit failed): nothing of this
        // attempt survives, so redo it with a savepoint per frame, where each frame commits
        // or fails on its own.
      }
      const results: (Error | null)[] = new Array(batch.length);
      try {
        await withTransaction(pool, async (client) => {
          for (let i = 0; i < batch.length; i++) {
            await client.query('SAVEPOINT subagent_context_frame');
            try {
              await upsertOne(batch[i].input, batch[i].observedAtNs, client);
              await client.query('RELEASE SAVEPOINT subagent_context_frame');
              results[i] = null;
            } catch (err) {
              await client.query('ROLLBACK TO SAVEPOINT subagent_context_frame');
              results[i] = toError(err);
            }
          }
        });
        return results;
      } catch (err) {
        const failure = toError(err);
        return batch.map(() => failure);
      }
    },
  };
}
