// The writer: a child process of the proxy, so nothing it does — JSON.parse of a huge line, a
// recognizer bug, a synchronous SQLite write on a slow or full disk, a PostgreSQL server that
// hangs, even a native crash — can delay a byte of the relay or end the proxy. (A worker thread
// is not enough: terminating one while better-sqlite3 is inside SQLite, e.g. waiting out a busy
// timeout, aborts the whole process.) This file is the channel side: it listens first and says
// 'hello' (a message that arrives before a listener exists is lost, and the proxy sends
// nothing before 'hello'), then loads the work (writer-jobs.ts). Every batch is read off the
// channel at once into a backlog and written one at a time, in order. When the proxy says
// 'drain' the writer writes what it holds and exits; if the proxy leaves before that is done
// (it does not wait long: the agent has exited), the writer finishes alone, detached, for at
// most the drain's time cap, and appends what became of the lines to the log file (nobody is
// left to read a WARN on stderr).
import { appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { makeFolder } from '../make-folder.js';
import type { LeftToFinish, WatchdogData } from './writer-watchdog.js';
import { targetMasker } from './target-secrets.js';
import { readSpill, sweepStaleSpills } from './spill.js';
import type { BatchWriter } from './writer-jobs.js';
import { WRITER_CONFIG_ENV, type FromWriter, type LineBatch, type ToWriter, type WriterConfig, type WriterStats } from './writer-protocol.js';

/** The background cap when the proxy left without saying how long (it died) and its config named none. */
const DEFAULT_BACKGROUND_MS = 60_000;

if (!process.send) throw new Error('writer-process.js runs as a child process with an IPC channel');
const send = process.send.bind(process);
const config = JSON.parse(process.env[WRITER_CONFIG_ENV] ?? '{}') as WriterConfig;
const defaultCapMs = config.backgroundMs ?? DEFAULT_BACKGROUND_MS;

// First, before anything that could block this thread (./writer-watchdog.ts says why); unref'd:
// a writer that ends in time ends as before.
const watchdogData: WatchdogData = {
  pid: process.pid,
  parentPid: config.proxyPid ?? process.ppid,
  capMs: defaultCapMs,
  logFile: config.logFile,
  execution: config.executionId,
};
const watchdog = startWatchdog();
/** Left to finish within `capMs`: the cap's timer here, and the watchdog's deadline past it. */
function leftToFinish(capMs: number): void {
  cap ??= setTimeout(overTime, capMs); // within a timer's range: the proxy clamps it (run-proxy.ts)
  watchdog?.postMessage({ type: 'left', capMs } satisfies LeftToFinish);
}
/** A safety net: a writer whose thread cannot start (a process's thread limit) writes without one, as before it had one. */
function startWatchdog(): Worker | undefined {
  try {
    const worker = new Worker(new URL('./writer-watchdog.js', import.meta.url), { workerData: watchdogData });
    worker.on('error', () => {}); // a watchdog that fails leaves the writer as it was
    worker.unref();
    return worker;
  } catch {
    return undefined;
  }
}

const backlog: LineBatch[] = [];
let backlogLines = 0;
let inFlight = 0; // lines of the batch being written
let draining = false;
let detached = false; // the proxy is gone: nobody reads our messages
let running = false;
let cap: NodeJS.Timeout | undefined;
/** What the proxy's own summary line counted before it left (ReportedMessage); nothing if it said nothing (it died). */
let reportedByProxy: WriterStats | null = null;

process.on('message', (message: ToWriter) => {
  if (message.type === 'reported') {
    reportedByProxy = message.stats;
    return;
  }
  if (message.type === 'lines') {
    backlog.push(message);
    backlogLines += message.ends.length;
  } else {
    for (const batch of message.spill ? readHandover(message.spill) : []) {
      backlog.push(batch);
      backlogLines += batch.ends.length;
    }
    draining = true;
    leftToFinish(message.backgroundMs);
  }
  void run();
});
// The proxy is gone (it left us to finish, or it died): what was received is still written,
// within the cap; a PostgreSQL transaction cut off by it rolls back, SQLite's WAL likewise.
process.on('disconnect', () => {
  detached = true;
  leftToFinish(defaultCapMs);
  void run();
});

const post = (message: FromWriter) => {
  if (!detached) send(message, undefined, undefined, () => {}); // a channel closing meanwhile is not an error here
};
// 'hello' must be on the channel before the work loads: opening the store is synchronous and
// may wait out a busy timeout (another connection holds the write lock), and a hello still
// queued behind that wait would reach the proxy too late (it gives up on a silent writer).
const helloSent = new Promise<void>((resolve) => send({ type: 'hello' } satisfies FromWriter, undefined, undefined, () => resolve()));

/** No secret of the connection string in a WARN or the log file (a driver's error may echo an sslkey path). */
const mask = targetMasker(config.target);
const warnings: string[] = []; // once detached, the first few go to the log file
const warn = (raw: string) => {
  const text = mask(raw);
  if (!detached) post({ type: 'warn', text });
  else if (warnings.length < 5) warnings.push(text);
};

const writer: Promise<BatchWriter> = helloSent
  .then(sweepEarlierHandovers)
  .then(() => import('./writer-jobs.js'))
  .then(({ createBatchWriter }) => {
    const created = createBatchWriter(config, warn);
    void created.opened.then((o) => post('error' in o ? { type: 'unavailable', error: o.error } : { type: 'ready', migrationsOk: o.ok }));
    return created;
  });

async function run(): Promise<void> {
  if (running) return;
  running = true;
  const w = await writer;
  while (backlog.length > 0) {
    const batch = backlog.shift()!;
    backlogLines -= batch.ends.length;
    inFlight = batch.ends.length;
    await w.write(batch);
    inFlight = 0;
    post({ type: 'done', stats: w.stats });
    // better-sqlite3 is synchronous: yield so the channel is read between batches.
    await new Promise((r) => setImmediate(r));
  }
  running = false;
  if (draining || detached) {
    clearTimeout(cap);
    await w.close();
    exitWith(w, 0);
  }
}

/** The proxy's last batches; a file that cannot be read is said in a WARN (its lines are not counted: nothing says how many). */
function readHandover(file: string): LineBatch[] {
  try {
    return readSpill(file);
  } catch (err) {
    warn(`the proxy's hand-over file ${file} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
}

/** Says how it went — to the proxy if it is still there, else in the log file — and exits. */
function exitWith(w: BatchWriter | null, unwritten: number): void {
  const stats = w?.stats ?? { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0, unrecognizedDelegations: 0, ledgerFailed: 0 };
  if (detached) {
    log(stats, unwritten);
    process.exit(0);
  }
  send({ type: 'closed', stats, unwritten } satisfies FromWriter, undefined, undefined, (err) => {
    if (err) log(stats, unwritten);
    process.exit(0);
  });
}

// Past the cap the store is not closed (that could wait on the very thing that is slow): the
// process exits, and what it had not committed rolls back.
function overTime(): void {
  void Promise.race([writer, null]).then((w) => exitWith(w, backlogLines + inFlight));
}

/** An earlier run's writer that stopped before reading its hand-over (killed, crashed) left it behind. */
function sweepEarlierHandovers(): void {
  for (const { file, lines } of sweepStaleSpills()) {
    const text = `removed ${file}, left by an earlier run whose writer stopped before reading it: ${lines === null ? 'its lines' : `${lines} lines`} were never written`;
    warn(text);
    appendLog(`${new Date().toISOString()} subagent-context proxy (execution ${config.executionId}): ${text}\n`);
  }
}

function appendLog(line: string): void {
  try {
    makeFolder(dirname(config.logFile));
    appendFileSync(config.logFile, mask(line));
  } catch {
    // nowhere left to say it
  }
}

function log(total: BatchWriter['stats'], unwritten: number): void {
  // Only what the proxy's summary did not already count.
  const since = (key: keyof WriterStats) => total[key] - (reportedByProxy?.[key] ?? 0);
  const stats = {
    written: since('written'),
    failed: since('failed'),
    recognizerErrors: since('recognizerErrors'),
    ledgerFailed: since('ledgerFailed'),
    unrecognizedDelegations: since('unrecognizedDelegations'),
  };
  const lost = [
    stats.failed && `${stats.failed} writes failed`,
    stats.recognizerErrors && `${stats.recognizerErrors} recognizer errors`,
    stats.ledgerFailed && `${stats.ledgerFailed} usage-ledger rows not written (their subagent rows are)`,
    stats.unrecognizedDelegations && `${stats.unrecognizedDelegations} unrecognized subagent launches (not recorded)`,
    unwritten && `${unwritten} lines not written when the background time ran out`,
  ].filter(Boolean);
  const first = warnings.length ? `; first WARN: ${warnings[0].replace(/\s*\n\s*/g, ' ')}` : '';
  appendLog(
    `${new Date().toISOString()} subagent-context proxy (execution ${config.executionId}): finished in the background: ${stats.written} writes recorded${lost.length ? `; ${lost.join(', ')}` : ''}${first}\n`,
  );
}
