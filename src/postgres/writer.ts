// The PostgreSQL live writer and reads: node-postgres pool, pgtyped functions (generated/postgres).
// BIGINT parameters travel as decimal text, timestamps as 'YYYY-MM-DD HH:MM:SS.ffffff' UTC
// text typed TIMESTAMP by the statement, so no result depends on the session TimeZone.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { listSubagentContextsBySession, listSubagentContextsByTurn, readMetaKey, upsertSubagentContext } from '../../generated/postgres/index.js';
import type { WriterAdapter } from '../dialect.js';
import type { UpsertInput } from '../frame-normalization.js';
import { formatMicros } from '../instant.js';
import { toRow } from '../rows.js';
import { withTransaction } from './transaction.js';

const decimal = (n: bigint | null) => (n === null ? null : n.toString());

export function postgresUpsertParams(input: UpsertInput, observedAtNs: bigint) {
  return {
    ...input,
    id: randomUUID(),
    totalTokens: decimal(input.totalTokens),
    toolUseCount: decimal(input.toolUseCount),
    durationMs: decimal(input.durationMs),
    observedAt: formatMicros(observedAtNs),
  };
}

export function createPostgresWriter(pool: pg.Pool): WriterAdapter {
  return {
    async upsert(input, observedAtNs) {
      await upsertSubagentContext.run(postgresUpsertParams(input, observedAtNs), pool);
    },
    async upsertBatch(batch) {
      // Optimistic path: the whole batch in one transaction, one round trip per frame.
      try {
        await withTransaction(pool, async (client) => {
          for (const { input, observedAtNs } of batch) await upsertSubagentContext.run(postgresUpsertParams(input, observedAtNs), client);
        });
        return batch.map(() => null);
      } catch {
        // A frame failed and aborted the transaction: redo with a savepoint per frame, so
        // each frame commits or fails on its own.
      }
      const results: (Error | null)[] = [];
      try {
        await withTransaction(pool, async (client) => {
          for (const { input, observedAtNs } of batch) {
            await client.query('SAVEPOINT frame');
            try {
              await upsertSubagentContext.run(postgresUpsertParams(input, observedAtNs), client);
              await client.query('RELEASE SAVEPOINT frame');
              results.push(null);
            } catch (err) {
              await client.query('ROLLBACK TO SAVEPOINT frame');
              results.push(err as Error);
            }
          }
        });
        return results;
      } catch (err) {
        return batch.map(() => err as Error);
      }
    },
    async listBySession(sessionId) {
      return (await listSubagentContextsBySession.run({ sessionId }, pool)).map(toRow);
    },
    async listByTurn(sessionId, turnId) {
      return (await listSubagentContextsByTurn.run({ sessionId, turnId }, pool)).map(toRow);
    },
    async readMetaKey(key) {
      const rows = await readMetaKey.run({ key }, pool);
      return rows[0]?.value ?? null;
    },
  };
}
