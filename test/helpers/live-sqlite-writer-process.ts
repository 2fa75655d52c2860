// A separate process with its own better-sqlite3 connection and store, for the SQLite
// concurrency test: real contention on one WAL file needs two processes, since a connection's
// busy wait is synchronous. Protocol over IPC: the parent sends { file, frames }; the child
// opens the file, replies 'ready', waits for 'go', records every frame, and replies with its
// outcomes, counters and WARN lines.
import Database from 'better-sqlite3';
import { createSqliteStore, type SubagentFrame } from '../../src/index.js';

interface Job {
  file: string;
  frames: SubagentFrame[];
  busyTimeoutMs: number;
  /** Pause between frames, as frames arrive from a stream: back-to-back commits would starve the other writer's busy wait. */
  pauseMs: number;
}

const send = (message: unknown) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));

process.once('message', (job: Job) => {
  const db = new Database(job.file, { timeout: job.busyTimeoutMs });
  db.pragma('foreign_keys = ON');
  const warns: unknown[] = [];
  const store = createSqliteStore(db, { logger: { warn: (fields, msg) => void warns.push({ fields, msg }) } });
  process.once('message', async () => {
    const outcomes: string[] = [];
    for (const frame of job.frames) {
      outcomes.push(await store.recordFrame(frame));
      await new Promise((resolve) => setTimeout(resolve, job.pauseMs));
    }
    db.close();
    await send({ outcomes, counters: store.counters(), warns });
    process.disconnect();
  });
  void send('ready');
});
