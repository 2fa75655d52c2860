// The writer's watchdog (./writer-process.ts starts it first thing): a worker thread, whose
// timers no loop of the writer's own thread can hold back. The writer's cap is a timer, which
// fires only while the writer's event loop turns; a synchronous loop (Node 20's recursive mkdir
// under /proc was one: a writer left spinning a core 17 minutes after its proxy had exited)
// keeps it from firing for good. So this thread ends the writer WATCHDOG_GRACE_MS past its cap,
// after a line in the log, counted from when it was left to finish: the writer says so when the
// proxy drains it or leaves (`left`), and this thread also sees the proxy go by itself (the
// writer's parent changes, or is gone), since a writer stuck before the drain — the /proc hang
// was at the store's opening — hears neither (review of 2026-12-07). A long cap is never a
// timer here (a delay past 2^31 - 1 ms fires at once): the deadline is checked on a short tick,
// on the monotonic clock as a timer would be (a wall clock stepped forward killed a healthy writer).
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { dirname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { makeFolder } from '../make-folder.js';

/** How long past its cap the watchdog lets the writer run. */
const WATCHDOG_GRACE_MS = 5_000;
/** How often the deadline and the parent are looked at: the kill comes within a tick or two past the grace. */
const TICK_MS = 1_000;

export interface WatchdogData {
  /** The writer's process, and the proxy that started it (its pid as the proxy gave it: a parent gone before the writer read its own would be missed). */
  readonly pid: number;
  readonly parentPid: number;
  /** The cap that applies when the proxy went without saying one (it died). */
  readonly capMs: number;
  readonly logFile: string;
  readonly execution: string;
}

/** From the writer: it was left to finish (drained, or its proxy left) with this cap. */
export interface LeftToFinish {
  readonly type: 'left';
  readonly capMs: number;
}

if (parentPort) watch(workerData as WatchdogData, parentPort);

function watch(data: WatchdogData, writer: NonNullable<typeof parentPort>): void {
  let deadline = Infinity;
  let allowedMs = 0;
  const leave = (capMs: number) => {
    const at = performance.now() + capMs + WATCHDOG_GRACE_MS;
    if (at < deadline) [deadline, allowedMs] = [at, capMs + WATCHDOG_GRACE_MS];
  };
  writer.on('message', (m: LeftToFinish) => leave(m.capMs));
  setInterval(() => {
    if (deadline === Infinity && proxyGone(data.parentPid)) leave(data.capMs);
    if (performance.now() < deadline) return;
    try {
      makeFolder(dirname(data.logFile));
      appendFileSync(
        data.logFile,
        `${new Date().toISOString()} subagent-context proxy (execution ${data.execution}): the writer was still running ${allowedMs} ms after it was left to finish, past its time cap: killed; what it had not committed rolls back\n`,
      );
    } catch {
      // nowhere left to say it
    }
    process.kill(data.pid, 'SIGKILL');
  }, TICK_MS);
}

/** The writer was re-parented (POSIX), or its parent is no more (where processes are not re-parented). */
function proxyGone(parentPid: number): boolean {
  if (process.ppid !== parentPid) return true;
  try {
    process.kill(parentPid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
