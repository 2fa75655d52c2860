// The import store on SQLite: the file is created when absent (like the proxy's default
// store), WAL mode, one BEGIN IMMEDIATE transaction per unit. The subagent rows go through the
// store's recordFrame, which joins the open transaction with a savepoint of its own; the
// transaction is the store's helper (src/sqlite/transaction.ts), as the proxy's is.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { makeFolder } from '../make-folder.js';
import {
  importAddParentUsage,
  importAddSubagentUsage,
  importBackdateLaunchMessage,
  importBackdateLaunchRow,
  importFindSubagentToolCall,
  importHasSubagentRow,
  importReadUnsettledSubagentCalls,
  importReadProgressOf,
  importWriteProgress,
} from '../../generated/sqlite/import/index.js';
import { proxyEnsureSession, proxyReadSessionTask, proxyUpsertSubagentMessage } from '../../generated/sqlite/proxy/index.js';
import { formatSqliteColumn } from '../instant.js';
import { createSqliteStore } from '../sqlite/store.js';
import { withAsyncTransaction } from '../sqlite/transaction.js';
import {
  ProgressMovedError,
  frameOf,
  messageRow,
  progressParams,
  toProgress,
  backdateParams,
  usageRows,
  type ImportStore,
  type ImportStoreOptions,
  type UnitOutcome,
} from './import-store.js';

export function openSqliteImportStore(file: string, options: ImportStoreOptions): ImportStore {
  makeFolder(dirname(file));
  const db = new Database(file, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // SQLite's own default page cache (2 MB), not better-sqlite3's 16 MB: the import writes new rows
  // and reads back the ones it just wrote, which a small cache holds. With 16 MB the import's peak
  // grew with the store until the cache filled (npm run bench -- --section import: +16 MB from a
  // 256 MiB tree to a 1 GiB one, an 18 MB store), at no measurable gain in time.
  db.pragma('cache_size = -2000');
  // The instant of the frame being written: the transcript's, so observed_at is when it happened.
  let frameAt: bigint | undefined;
  const store = createSqliteStore(db, { logger: options.logger, clock: () => frameAt ?? options.clock() });
  return {
    async prepare() {
      await store.createHostTables();
      return (await store.runMigrations()).ok;
    },
    async readProgress(source, transcripts) {
      return new Map(importReadProgressOf.many({ source, transcripts: JSON.stringify(transcripts) }, db).map((r) => [r.transcript, toProgress(r)]));
    },
    async findToolCall(sessionId, executionId, agentId) {
      return importFindSubagentToolCall.maybeOne({ sessionId, executionId, agentId }, db)?.toolCallId;
    },
    async hasSubagentRow(sessionId, executionId, toolCallId) {
      return Number(importHasSubagentRow.one({ sessionId, executionId, toolCallId }, db).present) === 1;
    },
    async unsettledCalls(sessionId, executionId) {
      return importReadUnsettledSubagentCalls.many({ sessionId, executionId }, db).map((r) => r.toolCallId);
    },
    async commit(unit) {
      const at = formatSqliteColumn(unit.at);
      const outcome: UnitOutcome = { frames: 0, failedFrames: 0 };
      try {
        return await withAsyncTransaction(db, async () => {
          proxyEnsureSession.run({ id: unit.sessionId, taskId: unit.taskId, at: formatSqliteColumn(unit.sessionAt) }, db);
          // The progress next (its foreign key needs the session): a unit whose lines another import
          // took is refused before anything else is written.
          if (importWriteProgress.exec({ ...progressParams(unit), at }, db) === 0) throw new ProgressMovedError(unit.progress.transcript);
          const taskId = proxyReadSessionTask.get({ id: unit.sessionId }, db)?.taskId ?? unit.taskId;
          for (const job of unit.jobs) {
            if (!job.sidecar) proxyUpsertSubagentMessage.run({ ...messageRow({ ...unit, taskId }, job), at: formatSqliteColumn(job.at) }, db);
            frameAt = job.at;
            const recorded = await store.recordFrame(frameOf(unit, job, taskId));
            frameAt = undefined;
            if (recorded === 'persisted') outcome.frames++;
            else outcome.failedFrames++;
            if (job.launch) {
              const backdate = backdateParams(unit, job, taskId, formatSqliteColumn(job.at));
              importBackdateLaunchMessage.run(backdate.message, db);
              importBackdateLaunchRow.run(backdate.row, db);
            }
          }
          const usage = usageRows(unit, (n) => n);
          const common = { sessionId: unit.sessionId, source: unit.source, at };
          for (const row of usage.parent) importAddParentUsage.run({ ...common, ...row }, db);
          if (unit.subagentUsage)
            for (const row of usage.subagent)
              importAddSubagentUsage.run({ ...common, ...row, executionId: unit.executionId, toolCallId: unit.subagentUsage.toolCallId }, db);
          return outcome;
        });
      } finally {
        frameAt = undefined;
      }
    },
    async close() {
      db.close();
    },
  };
}
