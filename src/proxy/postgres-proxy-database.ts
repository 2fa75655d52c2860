// The proxy's PostgreSQL store, on a small pool of its own. Each batch is one transaction on
// one client (batch-jobs.ts: the message rows in one statement, the subagent rows through
// recordFrames joining the same transaction, { client }), so a message and its subagent row
// commit together.
import {
  proxyEnsureSession,
  proxyReadSessionTask,
  proxyUpsertSubagentMessage,
  proxyUpsertSubagentMessagesBatch,
} from '../../generated/postgres/proxy/index.js';
import type pg from 'pg';
import { formatMicros } from '../instant.js';
import { ownPool } from '../postgres/own-pool.js';
import { createPostgresStore } from '../postgres/store.js';
import { BEGIN_READ_COMMITTED, withSavepoint, withTransaction } from '../postgres/transaction.js';
import { writeBatch } from './batch-jobs.js';
import {
  describeJobError,
  subagentMessageId,
  subagentMessageMetadata,
  type JobScope,
  type ProxyDatabase,
  type ProxyDatabaseOptions,
} from './proxy-database.js';

export function openPostgresProxyDatabase(url: string, options: ProxyDatabaseOptions): ProxyDatabase {
  const pool = ownPool(url, 'subagent-context-proxy', 2);
  // One instant per batch, for the subagent rows as for the message rows: a batch writes what its
  // jobs written one by one at that instant would (test/proxy-batch-write.test.ts).
  let batchAt: bigint | undefined;
  const store = createPostgresStore(pool, { logger: options.logger, clock: () => batchAt ?? options.clock() });
  const sessions = new Map<string, string>();
  return {
    store,
    async prepare() {
      await store.createHostTables();
      return store.runMigrations();
    },
    async write(jobs, atNs) {
      const at = formatMicros(atNs);
      batchAt = atNs;
      try {
        const scopeOn = (client: pg.PoolClient): JobScope => ({
          savepoint: (fn) => withSavepoint(client, 'proxy_job', fn),
          async ensureSession(job) {
            await proxyEnsureSession.run({ id: job.sessionId, taskId: job.taskId, at }, client);
            return (await proxyReadSessionTask.maybeOne({ id: job.sessionId }, client))?.taskId ?? job.taskId;
          },
          async upsertMessage(job) {
            const id = subagentMessageId(job.sessionId, job.toolCallId);
            await proxyUpsertSubagentMessage.run(
              { id, sessionId: job.sessionId, taskId: job.taskId, turnId: job.turnId, metadata: subagentMessageMetadata(job), at },
              client,
            );
          },
          async upsertMessages(rows) {
            await proxyUpsertSubagentMessagesBatch.run({ rows: JSON.stringify(rows), at }, client);
          },
          recordFrame: (frame) => store.recordFrame(frame, { client }),
          recordFrames: (frames) => store.recordFrames(frames, { client }),
        });
        // READ COMMITTED whatever the database's default, as the store's own batches: under
        // REPEATABLE READ a job that waited for another transaction's row failed 40001, and its
        // redo in the same transaction (the same snapshot) failed again.
        return await withTransaction(pool, (client) => writeBatch(jobs, scopeOn(client), options.executionId, sessions), BEGIN_READ_COMMITTED);
      } catch (err) {
        sessions.clear(); // what this transaction ensured is gone with it
        return { written: 0, failed: jobs.length, errors: [describeJobError(jobs[0], err)] };
      } finally {
        batchAt = undefined;
      }
    },
    close: () => pool.end(),
  };
}
