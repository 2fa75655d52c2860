// A separate process with its own better-sqlite3 connection and store, for the SQLite
// concurrency test: real contention on one WAL file needs two processes, since a connection's
// busy wait is synchronous. Protocol over IPC: the parent sends { file, frames, ... }; the
// child opens the file and replies 'ready'; then for each { from, to } it records those frames
// (a round, written while the other process writes its own) and replies { done: to }; on
// 'finish' it replies with its outcomes, counters and WARN lines and exits. The parent starts
// each round only when both writers finished the last, so the two really overlap round after
// round however the machine schedules them (no writer can run ahead and finish alone).
import Database from 'better-sqlite3';
import { createSqliteStore, type RecordOutcome, type SubagentFrame } from '../../src/index.js';

interface Job {
  file: string;
  frames: SubagentFrame[];
  busyTimeoutMs: number;
  /** Pause between frames, as frames arrive from a stream: back-to-back commits would starve the other writer's busy wait. */
  pauseMs: number;
}

type Command = { from: number; to: number } | 'finish';

const send = (message: unknown) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));

process.once('message', (job: Job) => {
  const db = new Database(job.file, { timeout: job.busyTimeoutMs });
  db.pragma('foreign_keys = ON');
  const warns: unknown[] = [];
  const store = createSqliteStore(db, { logger: { warn: (fields, msg) => void warns.push({ fields, msg }) } });
  const outcomes: RecordOutcome[] = [];
  process.on('message', async (command: Command) => {
    if (command === 'finish') {
      db.close();
      await send({ outcomes, counters: store.counters(), warns });
      process.disconnect();
      return;
    }
    for (let i = command.from; i < command.to; i++) {
      outcomes.push(await store.recordFrame(job.frames[i]));
      await new Promise((resolve) => setTimeout(resolve, job.pauseMs));
    }
    await send({ done: command.to });
  });
  void send('ready');
});
