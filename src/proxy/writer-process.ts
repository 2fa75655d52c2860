// The writer: a child process of the proxy, so nothing it does — JSON.parse of a huge line, a
// recognizer bug, a synchronous SQLite write on a slow or full disk, a PostgreSQL server that
// hangs, even a native crash — can delay a byte of the relay or end the proxy. (A worker thread
// is not enough: terminating one while better-sqlite3 is inside SQLite, e.g. waiting out a busy
// timeout, aborts the whole process.) It opens the store, creates the host tables, runs the
// migrations, then turns each batch of tee lines into identity, recognized updates and rows.
// It never throws out: every failure is a 'warn' message and a counter. It exits when the
// proxy says 'close', or when the proxy is gone (the IPC channel closes).
import { createWallClock } from '../instant.js';
import type { Logger } from '../types.js';
import { AcpIdentity, type WriteJob } from './acp-identity.js';
import type { ProxyDatabase } from './proxy-database.js';
import { createSubagentRecognizer } from './recognizer.js';
import type { FromWriter, ToWriter, WriterConfig, WriterStats } from './writer-protocol.js';

const send = process.send?.bind(process);
if (!send) throw new Error('writer-process.js runs as a child process with an IPC channel');
const config = JSON.parse(process.argv[2] ?? '{}') as WriterConfig;
const post = (message: FromWriter) => void send(message);
const stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0 };
const logger: Logger = {
  warn: (fields, msg) => post({ type: 'warn', text: `${msg} ${JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` }),
};
const clock = createWallClock();
const identity = new AcpIdentity({ recognizer: createSubagentRecognizer(), task: config.task, fallbackCwd: config.fallbackCwd });

async function open(): Promise<ProxyDatabase> {
  const options = { executionId: config.executionId, logger, clock };
  if (config.target.dialect === 'sqlite') {
    const { openSqliteProxyDatabase } = await import('./sqlite-proxy-database.js');
    return openSqliteProxyDatabase(config.target.file, options);
  }
  const { openPostgresProxyDatabase } = await import('./postgres-proxy-database.js');
  return openPostgresProxyDatabase(config.target.url, options);
}

function jobsOf(batch: Extract<ToWriter, { type: 'lines' }>): WriteJob[] {
  const jobs: WriteJob[] = [];
  let start = 0;
  for (let i = 0; i < batch.ends.length; i++) {
    const end = batch.ends[i];
    stats.lines++;
    try {
      const found = identity.observe({ direction: batch.directions[i] === 0 ? 0 : 1, bytes: batch.bytes.subarray(start, end) });
      stats.recognized += found.filter((j) => j.kind === 'subagent').length;
      jobs.push(...found);
    } catch (err) {
      stats.recognizerErrors++;
      post({ type: 'warn', text: `the recognizer threw on an update, which is not recorded: ${err instanceof Error ? err.message : String(err)}` });
    }
    start = end;
  }
  return jobs;
}

const database: Promise<ProxyDatabase | null> = (async () => {
  try {
    const db = await open();
    const report = await db.prepare();
    post({ type: 'ready', migrationsOk: report.ok });
    return db;
  } catch (err) {
    post({ type: 'unavailable', error: err instanceof Error ? err.message : String(err) });
    return null;
  }
})();

process.on('disconnect', () => process.exit(0)); // the proxy is gone: nothing more will come
// One message at a time: the proxy sends the next batch only after 'done'.
process.on('message', (message: ToWriter) => {
  void (async () => {
    const db = await database;
    if (message.type === 'close') {
      await db?.close().catch(() => {});
      post({ type: 'closed', stats });
      process.disconnect();
      return;
    }
    const jobs = jobsOf(message);
    if (db && jobs.length) {
      const result = await db.write(jobs, clock());
      stats.written += result.written;
      stats.failed += result.failed;
      for (const error of result.errors) post({ type: 'warn', text: error });
    } else if (jobs.length) {
      stats.failed += jobs.length;
    }
    post({ type: 'done', stats });
  })();
});
