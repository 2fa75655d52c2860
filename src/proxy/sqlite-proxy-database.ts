// The proxy's SQLite store: the file is created when absent (the proxy owns its default file),
// in WAL mode as a host would run it. Runs only inside the writer worker, so a slow disk
// (better-sqlite3 is synchronous) stalls the writer, never the relay.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { makeFolder } from '../make-folder.js';
import { proxyEnsureSession, proxyReadSessionTask, proxyUpsertSubagentMessage, proxyUpsertSubagentMessagesBatch } from '../../generated/sqlite/proxy/index.js';
import { formatSqliteColumn } from '../instant.js';
import { createSqliteStore } from '../sqlite/store.js';
import { withAsyncSavepoint, withAsyncTransaction, type LockWait } from '../sqlite/transaction.js';
import { writeBatch } from './batch-jobs.js';
import {
  describeJobError,
  subagentMessageId,
  subagentMessageMetadata,
  type JobScope,
  type ProxyDatabase,
  type ProxyDatabaseOptions,
} from './proxy-database.js';

/** The connection's busy timeout: how long opening the store and its migrations wait for the write lock. */
const BUSY_TIMEOUT_MS = 5_000;
/**
 * A batch waits for the write lock as long, in slices of 100 ms: between them the writer reads
 * its channel and its background cap's timer can fire (src/sqlite/transaction.ts, LockWait).
 */
const LOCK_WAIT: LockWait = { totalMs: BUSY_TIMEOUT_MS, sliceMs: 100 };

export function openSqliteProxyDatabase(file: string, options: ProxyDatabaseOptions): ProxyDatabase {
  makeFolder(dirname(file));
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  db.pragma('journal_mode = WAL');
  // This connection only: in WAL mode NORMAL syncs at checkpoints, not at every commit. A
  // commit survives a crash of the proxy or the agent; a power cut may take the last few.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // One instant per batch, for the subagent rows as for the message rows: a batch writes what its
  // jobs written one by one at that instant would (test/proxy-batch-write.test.ts).
  let batchAt: bigint | undefined;
  const store = createSqliteStore(db, { logger: options.logger, clock: () => batchAt ?? options.clock() });
  const sessions = new Map<string, string>();
  return {
    store,
    async prepare() {
      await store.createHostTables();
      return store.runMigrations();
    },
    async write(jobs, atNs) {
      const at = formatSqliteColumn(atNs);
      batchAt = atNs;
      try {
        const scope: JobScope = {
          savepoint: (fn) => withAsyncSavepoint(db, 'proxy_job', fn),
          async ensureSession(job) {
            proxyEnsureSession.run({ id: job.sessionId, taskId: job.taskId, at }, db);
            return proxyReadSessionTask.maybeOne({ id: job.sessionId }, db)?.taskId ?? job.taskId;
          },
          async upsertMessage(job) {
            const id = subagentMessageId(job.sessionId, job.toolCallId);
            proxyUpsertSubagentMessage.run(
              { id, sessionId: job.sessionId, taskId: job.taskId, turnId: job.turnId, metadata: subagentMessageMetadata(job), at },
              db,
            );
          },
          async upsertMessages(rows) {
            proxyUpsertSubagentMessagesBatch.run({ rows: JSON.stringify(rows), at }, db);
          },
          // Inside our open transaction the store writes in a savepoint of its own.
          recordFrame: (frame) => store.recordFrame(frame),
          recordFrames: (frames) => store.recordFrames(frames),
        };
        return await withAsyncTransaction(db, () => writeBatch(jobs, scope, options.executionId, sessions), LOCK_WAIT);
      } catch (err) {
        sessions.clear(); // what this transaction ensured is gone with it
        return { written: 0, failed: jobs.length, errors: [describeJobError(jobs[0], err)] };
      } finally {
        batchAt = undefined;
      }
    },
    async close() {
      db.close();
    },
  };
}
