// The SQLite live writer and reads: better-sqlite3 is synchronous, so each call runs to completion
// before the promise resolves. Every statement is a generated function (generated/sqlite).
import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { listSubagentContextsBySession, listSubagentContextsByTurn, readMetaKey, upsertSubagentContext } from '../../generated/sqlite/index.js';
import type { WriterAdapter } from '../dialect.js';
import type { UpsertInput } from '../frame-normalization.js';
import { formatSqliteColumn } from '../instant.js';
import { toRow, type RawSubagentRow } from '../rows.js';
import { withImmediateTransaction } from './transaction.js';

export function sqliteUpsertParams(input: UpsertInput, observedAtNs: bigint) {
  return { ...input, id: randomUUID(), observedAt: formatSqliteColumn(observedAtNs) };
}

export function createSqliteWriter(db: Database): WriterAdapter {
  const upsertOne = (input: UpsertInput, observedAtNs: bigint) => {
    upsertSubagentContext.run(sqliteUpsertParams(input, observedAtNs), db);
  };
  return {
    async upsert(input, observedAtNs) {
      upsertOne(input, observedAtNs);
    },
    async upsertBatch(batch) {
      const results: (Error | null)[] = [];
      try {
        withImmediateTransaction(db, () => {
          for (const { input, observedAtNs } of batch) {
            try {
              upsertOne(input, observedAtNs);
              results.push(null);
            } catch (err) {
              // A failing statement is undone alone (ABORT); if SQLite rolled the whole
              // transaction back instead (I/O error, full disk), nothing in it survives.
              if (!db.inTransaction) throw err;
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
      return listSubagentContextsBySession.all({ sessionId }, db).map((r) => toRow(r as RawSubagentRow));
    },
    async listByTurn(sessionId, turnId) {
      return listSubagentContextsByTurn.all({ sessionId, turnId }, db).map((r) => toRow(r as RawSubagentRow));
    },
    async readMetaKey(key) {
      return readMetaKey.get({ key }, db)?.value ?? null;
    },
  };
}
