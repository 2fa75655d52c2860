// The writer: a child process of the proxy, so nothing it does — JSON.parse of a huge line, a
// recognizer bug, a synchronous SQLite write on a slow or full disk, a PostgreSQL server that
// hangs, even a native crash — can delay a byte of the relay or end the proxy. (A worker thread
// is not enough: terminating one while better-sqlite3 is inside SQLite, e.g. waiting out a busy
// timeout, aborts the whole process.) It opens the store, creates the host tables, runs the
// migrations, then turns each batch of tee lines into identity, recognized updates and rows,
// one batch at a time, in the order they came. It never throws out: every failure is a 'warn'
// message and a counter. When the proxy says 'drain' it writes what it holds and exits; if the
// proxy leaves before that is done (it does not wait long: the agent has exited), the writer
// finishes alone, detached, for at most the drain's time cap, and appends what became of the
// lines to the log file (nobody is left to read a WARN on stderr).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createWallClock } from '../instant.js';
import type { Logger } from '../types.js';
import { AcpIdentity, type WriteJob } from './acp-identity.js';
import type { ProxyDatabase } from './proxy-database.js';
import { createSubagentRecognizer } from './recognizer.js';
import type { FromWriter, LineBatch, ToWriter, WriterConfig, WriterStats } from './writer-protocol.js';

/** The background cap when the proxy left without saying how long (it died). */
const DEFAULT_BACKGROUND_MS = 60_000;

if (!process.send) throw new Error('writer-process.js runs as a child process with an IPC channel');
const send = process.send.bind(process);
const config = JSON.parse(process.argv[2] ?? '{}') as WriterConfig;
let detached = false; // the proxy is gone: nobody reads our messages
const post = (message: FromWriter) => {
  if (!detached && process.connected) send(message, undefined, undefined, () => {}); // a closed channel is not an error here
};
const stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0 };
const warnings: string[] = []; // kept for the log file once detached (the first few only)
const warn = (text: string) => {
  if (detached) {
    if (warnings.length < 5) warnings.push(text);
  } else post({ type: 'warn', text });
};
const logger: Logger = {
  warn: (fields, msg) => warn(`${msg} ${JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`),
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

function jobsOf(batch: LineBatch): WriteJob[] {
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
      warn(`the recognizer threw on an update, which is not recorded: ${err instanceof Error ? err.message : String(err)}`);
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

// What the proxy sent and the writer has not written yet: read off the channel at once (so
// the proxy's hand-over at exit completes quickly), written one batch at a time.
const backlog: LineBatch[] = [];
let backlogLines = 0;
let inFlight = 0; // lines of the batch being written
let draining = false;
let running = false;
let cap: NodeJS.Timeout | undefined;

async function run(): Promise<void> {
  if (running) return;
  running = true;
  const db = await database;
  while (backlog.length > 0) {
    const batch = backlog.shift()!;
    backlogLines -= batch.ends.length;
    inFlight = batch.ends.length;
    const jobs = jobsOf(batch);
    if (db && jobs.length) {
      const result = await db.write(jobs, clock());
      stats.written += result.written;
      stats.failed += result.failed;
      for (const error of result.errors) warn(error);
    } else if (jobs.length) {
      stats.failed += jobs.length;
    }
    inFlight = 0;
    post({ type: 'done', stats });
    // better-sqlite3 is synchronous: yield so the channel is read between batches.
    await new Promise((r) => setImmediate(r));
  }
  running = false;
  if (draining || detached) await finish(db, 0);
}

async function finish(db: ProxyDatabase | null, unwritten: number): Promise<void> {
  clearTimeout(cap);
  await db?.close().catch(() => {});
  exitWith(unwritten);
}

/** Says how it went — to the proxy if it is still there, else in the log file — and exits. */
function exitWith(unwritten: number): void {
  if (detached || !process.connected) {
    log(unwritten);
    process.exit(0);
  }
  send({ type: 'closed', stats, unwritten } satisfies FromWriter, undefined, undefined, (err) => {
    if (err) log(unwritten);
    process.exit(0);
  });
}

function log(unwritten: number): void {
  const lost = [
    stats.failed && `${stats.failed} writes failed`,
    stats.recognizerErrors && `${stats.recognizerErrors} recognizer errors`,
    unwritten && `${unwritten} lines not written when the background time ran out`,
  ].filter(Boolean);
  const line = `${new Date().toISOString()} subagent-context proxy (execution ${config.executionId}): finished in the background: ${stats.written} writes recorded${lost.length ? `; ${lost.join(', ')}` : ''}${warnings.length ? `; first WARN: ${warnings[0].replace(/\s*\n\s*/g, ' ')}` : ''}\n`;
  try {
    mkdirSync(dirname(config.logFile), { recursive: true });
    appendFileSync(config.logFile, line);
  } catch {
    // nowhere left to say it
  }
}

process.on('message', (message: ToWriter) => {
  if (message.type === 'lines') {
    backlog.push(message);
    backlogLines += message.ends.length;
  } else draining = true;
  if (message.type === 'drain') cap = setTimeout(() => overTime(), message.backgroundMs);
  void run();
});

// The proxy is gone (it left us to finish, or it died): what was received is still written,
// within the cap; a PostgreSQL transaction cut off by it rolls back, SQLite's WAL likewise.
process.on('disconnect', () => {
  detached = true;
  cap ??= setTimeout(() => overTime(), DEFAULT_BACKGROUND_MS);
  void run();
});

// Past the cap the store is not closed (that could wait on the very thing that is slow): the
// process exits, and what it had not committed rolls back.
function overTime(): void {
  exitWith(backlogLines + inFlight);
}
