// The import store on PostgreSQL: a small pool of its own, one transaction per unit on one
// client; the subagent rows go through the store's recordFrame joining it ({ client }).
import pg from 'pg';
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
} from '../../generated/postgres/import/index.js';
import { proxyEnsureSession, proxyReadSessionTask, proxyUpsertSubagentMessage } from '../../generated/postgres/proxy/index.js';
import { formatMicros } from '../instant.js';
import { createPostgresStore } from '../postgres/store.js';
import { BEGIN_READ_COMMITTED, withTransaction } from '../postgres/transaction.js';
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

export function openPostgresImportStore(url: string, options: ImportStoreOptions): ImportStore {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000, application_name: 'subagent-context-import' });
  pool.on('error', () => {}); // an idle client's socket error surfaces on the next query instead
  let frameAt: bigint | undefined;
  const store = createPostgresStore(pool, { logger: options.logger, clock: () => frameAt ?? options.clock() });
  return {
    async prepare() {
      await store.createHostTables();
      return (await store.runMigrations()).ok;
    },
    async readProgress(source, transcripts) {
      return new Map((await importReadProgressOf.many({ source, transcripts }, pool)).map((r) => [r.transcript, toProgress(r)]));
    },
    async findToolCall(sessionId, executionId, agentId) {
      return (await importFindSubagentToolCall.maybeOne({ sessionId, executionId, agentId }, pool))?.toolCallId;
    },
    async hasSubagentRow(sessionId, executionId, toolCallId) {
      return (await importHasSubagentRow.one({ sessionId, executionId, toolCallId }, pool)).present === true;
    },
    async unsettledCalls(sessionId, executionId) {
      return (await importReadUnsettledSubagentCalls.many({ sessionId, executionId }, pool)).map((r) => r.toolCallId);
    },
    async commit(unit) {
      const at = formatMicros(unit.at);
      const outcome: UnitOutcome = { frames: 0, failedFrames: 0 };
      try {
        await withTransaction(
          pool,
          async (client) => {
            await proxyEnsureSession.run({ id: unit.sessionId, taskId: unit.taskId, at: formatMicros(unit.sessionAt) }, client);
            // The progress next (its foreign key needs the session): a unit whose lines another
            // import took is refused before anything else is written, and a second run committing
            // the same transcript waits here for the first.
            if ((await importWriteProgress.exec({ ...progressParams(unit), at }, client)) === 0) throw new ProgressMovedError(unit.progress.transcript);
            const taskId = (await proxyReadSessionTask.maybeOne({ id: unit.sessionId }, client))?.taskId ?? unit.taskId;
            for (const job of unit.jobs) {
              if (!job.sidecar) await proxyUpsertSubagentMessage.run({ ...messageRow({ ...unit, taskId }, job), at: formatMicros(job.at) }, client);
              frameAt = job.at;
              const recorded = await store.recordFrame(frameOf(unit, job, taskId), { client });
              frameAt = undefined;
              if (recorded === 'persisted') outcome.frames++;
              else outcome.failedFrames++;
              if (job.launch) {
                const backdate = backdateParams(unit, job, taskId, formatMicros(job.at));
                await importBackdateLaunchMessage.run(backdate.message, client);
                await importBackdateLaunchRow.run(backdate.row, client);
              }
            }
            const usage = usageRows(unit, String);
            const common = { sessionId: unit.sessionId, source: unit.source, at };
            for (const row of usage.parent) await importAddParentUsage.run({ ...common, ...row }, client);
            if (unit.subagentUsage)
              for (const row of usage.subagent)
                await importAddSubagentUsage.run({ ...common, ...row, executionId: unit.executionId, toolCallId: unit.subagentUsage.toolCallId }, client);
          },
          // The progress check (import_write_progress.sql) needs READ COMMITTED too: a commit that
          // waited for another import's sees its row and is refused. Under a database's default
          // of REPEATABLE READ or SERIALIZABLE it failed 40001 instead (review of 2026-12-05).
          BEGIN_READ_COMMITTED,
        );
        return outcome;
      } finally {
        frameAt = undefined;
      }
    },
    close: () => pool.end(),
  };
}
