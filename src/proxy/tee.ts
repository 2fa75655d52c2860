// The relay's side of the tee: picks the lines worth parsing, queues them (bounded, drop-oldest:
// tee-queue.ts), and hands them in batches to the writer process (writer-process.ts), one batch
// in flight at a time. Nothing here waits on the writer; if it cannot start or dies, the relay
// goes on and the lines are counted as dropped.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LineTap } from './line-tap.js';
import type { RateLimitedWarn } from './rate-limited-warn.js';
import { TeeQueue } from './tee-queue.js';
import type { FromWriter, LineBatch, ToWriter, WriterConfig, WriterStats } from './writer-protocol.js';

export interface TeeLimits {
  maxLines: number;
  maxBytes: number;
  maxLineBytes: number;
}

/** How long a line may wait on the relay side for more to share its batch. */
const PUMP_DELAY_MS = 5;

/** The writer's niceness (POSIX; Windows maps it to a lower priority class). */
const WRITER_NICENESS = 10;

/** Lines per batch: one transaction each, so a burst commits (and reports progress) in steps. */
const MAX_BATCH_LINES = 256;

export const DEFAULT_TEE_LIMITS: TeeLimits = { maxLines: 20_000, maxBytes: 64 * 1024 * 1024, maxLineBytes: 16 * 1024 * 1024 };

/** The JSON-RPC the proxy tracks: byte tests, so lines that cannot matter are never parsed. */
const CLIENT_NEEDLES = ['"session/new"', '"session/load"', '"session/prompt"'].map((n) => Buffer.from(n));
const UPDATE_NEEDLE = Buffer.from('"session/update"');
const RESULT_NEEDLE = Buffer.from('"result"');

export interface TeeSummary extends WriterStats {
  /** Lines dropped because the queue was full (the oldest first). */
  dropped: number;
  /** Lines still queued or in flight when the writer's time ran out at exit. */
  unwritten: number;
  oversize: number;
  unavailable: boolean;
}

export class Tee {
  readonly fromClient: LineTap;
  readonly fromAgent: LineTap;
  private readonly queue: TeeQueue;
  private readonly worker: ChildProcess;
  private ready = false;
  private busy = false;
  private inFlight = 0; // lines in the batch the writer is working on
  private dead = false;
  private oversize = 0;
  private unavailable = false;
  private stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0 };
  private idle: (() => void) | null = null;
  private pumpTimer: NodeJS.Timeout | undefined;
  private closed: (() => void) | null = null;

  constructor(
    config: WriterConfig,
    private readonly warn: RateLimitedWarn,
    limits: TeeLimits = DEFAULT_TEE_LIMITS,
  ) {
    this.queue = new TeeQueue(limits.maxLines, limits.maxBytes);
    const tap = (direction: 0 | 1, wanted: (line: Buffer) => boolean) =>
      new LineTap({
        maxLineBytes: limits.maxLineBytes,
        wanted,
        onLine: (bytes) => this.offer(direction, bytes),
        onOversize: () => void this.oversize++,
      });
    this.fromClient = tap(0, (line) => CLIENT_NEEDLES.some((n) => line.includes(n)));
    // Responses are needed for session/new (the session id) and session/prompt (the turn's end).
    this.fromAgent = tap(1, (line) => line.includes(UPDATE_NEEDLE) || line.includes(RESULT_NEEDLE));
    // Its own process group (detached), so a Ctrl-C meant for the agent does not kill the
    // writer mid-session; it exits by itself when the proxy's IPC channel closes.
    this.worker = fork(fileURLToPath(new URL('./writer-process.js', import.meta.url)), [JSON.stringify(config)], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      detached: true,
    });
    // Below the relay in CPU priority: on a busy machine the writer waits, the relay does not.
    try {
      if (this.worker.pid !== undefined) setPriority(this.worker.pid, WRITER_NICENESS);
    } catch {
      // not permitted here: the writer runs at the proxy's priority
    }
    this.worker.on('message', (m: FromWriter) => this.onMessage(m));
    this.worker.on('error', (err) => this.die(`the writer stopped: ${err.message}`));
    this.worker.on('exit', (code, signal) => this.die(`the writer exited (${signal ?? code})`));
  }

  private offer(direction: 0 | 1, bytes: Buffer): void {
    if (this.dead) {
      this.queue.dropped++;
      return;
    }
    this.queue.push({ direction, bytes });
    // Batched on a short timer, not per line: the relay's turn of the event loop then ends
    // with the relayed write, and the IPC send (and the writer's wake-up) happen once per
    // batch instead of once per message.
    this.pumpTimer ??= setTimeout(() => {
      this.pumpTimer = undefined;
      this.pump();
    }, PUMP_DELAY_MS);
  }

  private pump(): void {
    if (!this.ready || this.busy || this.dead || this.queue.length === 0) {
      if (!this.busy && this.queue.length === 0) this.idle?.();
      return;
    }
    const lines = this.queue.take(MAX_BATCH_LINES);
    const total = lines.reduce((n, l) => n + l.bytes.length, 0);
    const buffers = { bytes: new ArrayBuffer(total), ends: new ArrayBuffer(lines.length * 4), directions: new ArrayBuffer(lines.length) };
    const batch: LineBatch = {
      type: 'lines',
      bytes: new Uint8Array(buffers.bytes),
      ends: new Uint32Array(buffers.ends),
      directions: new Uint8Array(buffers.directions),
    };
    let offset = 0;
    lines.forEach((l, i) => {
      batch.bytes.set(l.bytes, offset);
      offset += l.bytes.length;
      batch.ends[i] = offset;
      batch.directions[i] = l.direction;
    });
    this.busy = true;
    this.inFlight = lines.length;
    this.send(batch);
  }

  private send(message: ToWriter): void {
    try {
      this.worker.send(message, (err) => err && this.die(`the writer is unreachable: ${err.message}`));
    } catch (err) {
      this.die(`the writer is unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private onMessage(m: FromWriter): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (!m.migrationsOk) this.warn.warn('a migration step failed (see the WARN above); the next run retries it');
        break;
      case 'unavailable':
        this.warn.warn(`cannot record: ${m.error}; the session goes on unrecorded`);
        this.unavailable = true;
        this.ready = true; // the worker still reads (and counts) what it is sent
        break;
      case 'warn':
        this.warn.warn(m.text);
        return;
      case 'done':
        this.stats = m.stats;
        this.busy = false;
        this.inFlight = 0;
        break;
      case 'closed':
        this.stats = m.stats;
        this.closed?.();
        return;
    }
    this.pump();
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.queue.dropped += this.queue.takeAll().length + this.inFlight;
    this.inFlight = 0;
    if (!this.closed) this.warn.warn(`${reason}; the session goes on unrecorded`);
    this.idle?.();
    this.closed?.();
  }

  /** Waits (at most `deadlineMs`) for the queue to be written, then closes the store. */
  async close(deadlineMs: number): Promise<TeeSummary> {
    const deadline = new Promise<void>((r) => setTimeout(r, deadlineMs).unref());
    const idle = new Promise<void>((r) => {
      this.idle = r;
    });
    this.pump();
    if (this.busy || this.queue.length > 0 || !this.ready) await Promise.race([idle, deadline]);
    if (!this.dead) {
      const closed = new Promise<void>((r) => {
        this.closed = r;
      });
      this.send({ type: 'close' });
      await Promise.race([closed, deadline]);
    }
    const unwritten = this.queue.takeAll().length + this.inFlight;
    this.dead = true;
    // Past the deadline the writer is killed: SQLite (WAL) and PostgreSQL both roll back what
    // it had not committed. A writer that closed itself is already gone.
    if (this.worker.exitCode === null && this.worker.signalCode === null) this.worker.kill('SIGKILL');
    if (this.worker.connected) this.worker.disconnect();
    return { ...this.stats, dropped: this.queue.dropped, unwritten, oversize: this.oversize, unavailable: this.unavailable };
  }
}
