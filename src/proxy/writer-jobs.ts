// The writer process's work (loaded by writer-process.ts once it is listening on the
// channel): open the store, create the host tables, run the migrations, then turn each batch
// of tee lines into identity, recognized updates and rows. Never throws out: every failure is
// a warning and a counter.
import { matchDialect } from '../dialect.js';
import { createWallClock } from '../instant.js';
import type { Logger } from '../types.js';
import { AcpIdentity, type WriteJob } from './acp-identity.js';
import { withDriver } from './driver-missing.js';
import type { ProxyDatabase } from './proxy-database.js';
import { createSubagentRecognizer } from './recognizer.js';
import type { LineBatch, WriterConfig, WriterStats } from './writer-protocol.js';

export interface BatchWriter {
  readonly stats: WriterStats;
  /** Resolves once the store is open and migrated (ok: the migrations' report), or could not be (error). */
  readonly opened: Promise<{ ok: boolean } | { error: string }>;
  write(batch: LineBatch): Promise<void>;
  close(): Promise<void>;
}

export function createBatchWriter(config: WriterConfig, warn: (text: string) => void): BatchWriter {
  const stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0, unrecognizedDelegations: 0, ledgerFailed: 0 };
  const logger: Logger = {
    warn: (fields, msg) => warn(`${msg} ${JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`),
  };
  const clock = createWallClock();
  // Never blind in silence: a delegation no shape reads is counted, and warned once per title.
  const warnedTitles = new Set<string>();
  const recognizer = createSubagentRecognizer({
    onUnrecognizedDelegation({ title, reason }) {
      stats.unrecognizedDelegations++;
      const name = title ?? `(${reason})`;
      if (warnedTitles.has(name) || warnedTitles.size >= 1024) return;
      warnedTitles.add(name);
      warn(`a tool call looks like a subagent launch but matches no known agent, so its subagents are not recorded: ${JSON.stringify(name)} (${reason})`);
    },
  });
  const identity = new AcpIdentity({ recognizer, task: config.task, fallbackCwd: config.fallbackCwd });

  async function open(): Promise<ProxyDatabase> {
    const options = { executionId: config.executionId, logger, clock };
    return matchDialect(config.target, {
      sqlite: ({ file }) => withDriver('better-sqlite3', async () => (await import('./sqlite-proxy-database.js')).openSqliteProxyDatabase(file, options)),
      postgres: ({ url }) => withDriver('pg', async () => (await import('./postgres-proxy-database.js')).openPostgresProxyDatabase(url, options)),
    });
  }

  let db: ProxyDatabase | null = null;
  const opened = (async () => {
    try {
      db = await open();
      return { ok: (await db.prepare()).ok };
    } catch (err) {
      db = null;
      return { error: err instanceof Error ? err.message : String(err) };
    }
  })();

  function jobsOf(batch: LineBatch): WriteJob[] {
    const jobs: WriteJob[] = [];
    let start = 0;
    for (let i = 0; i < batch.ends.length; i++) {
      const end = batch.ends[i];
      stats.lines++;
      try {
        const found = identity.observe({ direction: batch.directions[i] === 0 ? 0 : 1, bytes: batch.bytes.subarray(start, end) });
        for (const job of found) if (job.kind === 'subagent') stats.recognized++;
        jobs.push(...found);
      } catch (err) {
        stats.recognizerErrors++;
        warn(`the recognizer threw on an update, which is not recorded: ${err instanceof Error ? err.message : String(err)}`);
      }
      start = end;
    }
    return jobs;
  }

  return {
    stats,
    opened,
    async write(batch) {
      await opened;
      const jobs = jobsOf(batch);
      if (jobs.length === 0) return;
      if (!db) {
        stats.failed += jobs.length;
        return;
      }
      const result = await db.write(jobs, clock());
      stats.written += result.written;
      stats.failed += result.failed;
      stats.ledgerFailed = db.store.counters().ledger_failed; // WARNed by the store, one line each
      for (const error of result.errors) warn(error);
    },
    async close() {
      await opened;
      await db?.close().catch(() => {});
    },
  };
}
