// The SQLite live writer: better-sqlite3 is synchronous, so each call runs to completion
// before the promise resolves. The upsert is the generated statement (generated/sqlite),
// prepared once per connection and bound directly.
import type { Database } from 'better-sqlite3';
import { upsertSubagentContext, type IUpsertSubagentContextParams } from '../../generated/sqlite/index.js';
import { createColumnTimeFormatter } from '../column-time.js';
import type { WriterAdapter } from '../dialect.js';
import { toError } from '../errors.js';
import { upsertParameters, type UpsertInput } from '../frame-normalization.js';
import { withImmediateTransaction } from './transaction.js';

export function createSqliteWriter(db: Database): WriterAdapter {
  // DESIGN §4: the package writes SQLite timestamps fixed-width 'YYYY-MM-DD HH:MM:SS.ffffff+00:00'.
  const columnTime = createColumnTimeFormatter('+00:00');

  const asIs = (n: bigint | null) => n; // better-sqlite3 binds a bigint as an exact INTEGER
  const upsertOne = (input: UpsertInput, observedAtNs: bigint): void => {
    const params: Required<IUpsertSubagentContextParams> = upsertParameters(input, columnTime(observedAtNs), asIs);
    upsertSubagentContext.statement(db).run(params);
  };

  return {
    async upsert(input, observedAtNs) {
      upsertOne(input, observedAtNs);
    },
    // The single upsert per frame inside one transaction, not the batch statement: in-process
    // statements cost microseconds (queries/sqlite/upsert_subagent_contexts_batch.sql says why).
    async upsertBatch(batch) {
      const results: (Error | null)[] = new Array(batch.length);
      try {
        withImmediateTransaction(db, () => {
          for (let i = 0; i < batch.length; i++) {
            try {
              upsertOne(batch[i].input, batch[i].observedAtNs);
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
        return results;
      } catch (err) {
        const failure = toError(err);
        return batch.map(() => failure);
      }
    },
  };
}
