// The relay's side of the tee: picks the lines worth parsing, queues them (bounded, drop-oldest:
// tee-queue.ts), and hands them in batches to the writer process (writer-process.ts), one batch
// in flight at a time. Nothing here waits on the writer; if it cannot start or dies, the relay
// goes on and the lines are counted as dropped.
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LineTap } from './line-tap.js';
import type { RateLimitedWarn } from './rate-limited-warn.js';
import { spillBatches } from './spill.js';
import { TeeQueue, type TeeLine } from './tee-queue.js';
import type { FromWriter, LineBatch, ToWriter, WriterConfig, WriterStats } from './writer-protocol.js';

export interface TeeLimits {
  maxLines: number;
  maxBytes: number;
  maxLineBytes: number;
}

/** How long a line may wait on the relay side for more to share its batch (a full batch goes at once). */
const PUMP_DELAY_MS = 50;

/** The writer's niceness, the lowest priority (POSIX; Windows maps it to a priority class). */
const WRITER_NICENESS = 19;

/** Lines per batch: one transaction each, so a burst commits (and reports progress) in steps,
 * and the writer, between two, reads its channel and keeps its time cap. */
const MAX_BATCH_LINES = 256;

/** How long the proxy, leaving, waits for the hand-over to reach the channel. */
const HANDOVER_MS = 2_000;

// The byte bound is the memory bound; the line bound only caps the per-line overhead (about
// 150 bytes each), high enough that a burst of small updates is held, not dropped.
export const DEFAULT_TEE_LIMITS: TeeLimits = { maxLines: 100_000, maxBytes: 64 * 1024 * 1024, maxLineBytes: 16 * 1024 * 1024 };

/** The JSON-RPC the proxy tracks: byte tests, so lines that cannot matter are never parsed. */
const CLIENT_NEEDLES = ['"session/new"', '"session/load"', '"session/prompt"'].map((n) => Buffer.from(n));
const UPDATE_NEEDLE = Buffer.from('"session/update"');
/**
 * The updates the recognizer reads (src/acp/recognizer.ts: tool_call, tool_call_update,
 * subagent_update, a child session's state_update and session_info_update, and Qwen Code's
 * background completion notice, an agent_message_chunk with `_meta.backgroundTask`). Other
 * message and thought chunks, the bulk of a session's traffic and its largest lines, are
 * relayed and never copied for the writer.
 */
const RECOGNIZED_UPDATE_NEEDLES = ['"tool_call', '"subagent_update"', '"state_update"', '"session_info_update"', '"backgroundTask"'].map((n) => Buffer.from(n));
/** Agent → client requests the recognizer reads: Cursor's `cursor/task`. */
const REQUEST_NEEDLES = ['"cursor/task"'].map((n) => Buffer.from(n));
const RESULT_NEEDLE = Buffer.from('"result"');

export interface TeeSummary extends WriterStats {
  /** Lines dropped because the queue was full (the oldest first). */
  dropped: number;
  /** Lines the writer did not write: cut off by its time cap, or not handed over at exit. */
  unwritten: number;
  /** Lines left to the writer to finish in the background after the proxy exits. */
  background: number;
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
  private dead = false;
  private oversize = 0;
  private unavailable = false;
  private stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0, unrecognizedDelegations: 0 };
  private pumpTimer: NodeJS.Timeout | undefined;
  private closed: ((unwritten: number) => void) | null = null;
  private sentLines = 0; // lines put on the channel to the writer
  private listening = false; // the writer said 'hello': what is sent now reaches a listener
  private heard: (() => void) | null = null;

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
    this.fromAgent = tap(
      1,
      (line) =>
        (line.includes(UPDATE_NEEDLE) && RECOGNIZED_UPDATE_NEEDLES.some((n) => line.includes(n))) ||
        line.includes(RESULT_NEEDLE) ||
        REQUEST_NEEDLES.some((n) => line.includes(n)),
    );
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
    // Batched, not sent per line: the relay's turn of the event loop ends with the relayed
    // write, and the IPC send, the writer's wake-up and its 'done' (which wakes the relay
    // again) happen once per full batch, or once per PUMP_DELAY_MS when traffic is light.
    if (this.queue.length >= MAX_BATCH_LINES) this.pump();
    else this.armPump();
  }

  private armPump(): void {
    this.pumpTimer ??= setTimeout(() => {
      this.pumpTimer = undefined;
      this.pump();
    }, PUMP_DELAY_MS);
  }

  private pump(): void {
    if (!this.ready || this.busy || this.dead || this.queue.length === 0) return;
    const lines = this.queue.take(MAX_BATCH_LINES);
    const batch = packBatch(lines);
    this.busy = true;
    this.send(batch);
  }

  private send(message: ToWriter, sent?: () => void): void {
    if (message.type === 'lines') this.sentLines += message.ends.length;
    try {
      this.worker.send(message, (err) => {
        if (err) this.die(`the writer is unreachable: ${err.message}`);
        else sent?.();
      });
    } catch (err) {
      this.die(`the writer is unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private onMessage(m: FromWriter): void {
    switch (m.type) {
      case 'hello':
        this.listening = true;
        this.heard?.();
        return;
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
        // A full batch goes now; a partial one waits for the timer, so that under light
        // traffic the writer is not woken (and does not wake the relay) for every few lines.
        if (this.queue.length >= MAX_BATCH_LINES) this.pump();
        else if (this.queue.length > 0) this.armPump();
        return;
      case 'closed':
        this.stats = m.stats;
        this.closed?.(m.unwritten);
        return;
    }
    this.pump();
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    const lost = Math.max(0, this.sentLines - this.stats.lines); // on the channel or in the writer's hands
    this.queue.dropped += this.queue.takeAll().length;
    if (this.closed) return this.closed(lost);
    this.queue.dropped += lost;
    this.warn.warn(`${reason}; the session goes on unrecorded`);
  }

  /**
   * The agent has exited: hands everything still queued to the writer and waits at most
   * `foregroundMs` for it to be written. A writer that needs longer is left to finish alone
   * (detached, for at most `backgroundMs`); the proxy does not wait for it.
   */
  async close(foregroundMs: number, backgroundMs: number): Promise<TeeSummary> {
    clearTimeout(this.pumpTimer);
    const summary = (unwritten: number, background: number): TeeSummary => ({
      ...this.stats,
      dropped: this.queue.dropped,
      unwritten,
      background,
      oversize: this.oversize,
      unavailable: this.unavailable,
    });
    if (this.dead) return summary(0, 0);
    if (!this.listening) await Promise.race([new Promise<void>((r) => (this.heard = r)), delay(HANDOVER_MS)]);
    if (!this.listening || this.dead) {
      this.dead = true;
      this.worker.kill('SIGKILL'); // never started (or died): nothing was sent to it
      return summary(this.queue.takeAll().length, 0);
    }
    // Not waiting for 'ready' or 'done': the writer reads the channel into its own backlog.
    const unsent = new Set<number>(); // sizes of the batches not yet on the channel
    const flushed: Promise<void>[] = [];
    const rest: LineBatch[] = [];
    while (this.queue.length > 0) rest.push(packBatch(this.queue.take(MAX_BATCH_LINES)));
    const spill = rest.length > 0 ? spillBatches(rest, this.worker.pid ?? 0) : null;
    if (spill) this.sentLines += rest.reduce((n, b) => n + b.ends.length, 0);
    else {
      for (const batch of rest) {
        const entry = batch.ends.length;
        unsent.add(entry);
        flushed.push(new Promise<void>((r) => this.send(batch, () => (unsent.delete(entry), r()))));
      }
    }
    const ended = new Promise<number>((r) => {
      this.closed = r;
    });
    // Without the drain the writer would take the default cap.
    flushed.push(new Promise<void>((r) => this.send({ type: 'drain', backgroundMs, ...(spill ? { spill } : {}) }, r)));
    const unwritten = await Promise.race([ended, delay(foregroundMs).then(() => null)]);
    this.dead = true;
    if (unwritten !== null) return summary(unwritten, 0);
    // The writer goes on alone. What it has not taken off the channel yet must be on it
    // before the proxy exits (bounded: a writer that reads nothing any more gets no longer).
    await Promise.race([Promise.all(flushed), delay(HANDOVER_MS)]);
    const lost = [...unsent].reduce((n, size) => n + size, 0);
    const background = Math.max(0, this.sentLines - lost - this.stats.lines);
    const result = summary(lost, background);
    // Said before leaving, so the writer's log counts only the writes this summary does not.
    await Promise.race([new Promise<void>((r) => this.send({ type: 'reported', written: result.written }, r)), delay(HANDOVER_MS)]);
    this.worker.removeAllListeners('exit');
    if (this.worker.connected) this.worker.disconnect();
    this.worker.unref();
    return result;
  }
}

/** One buffer for a batch's lines, with their end offsets and directions: one copy per batch. */
function packBatch(lines: readonly TeeLine[]): LineBatch {
  const total = lines.reduce((n, l) => n + l.bytes.length, 0);
  const batch: LineBatch = { type: 'lines', bytes: new Uint8Array(total), ends: new Uint32Array(lines.length), directions: new Uint8Array(lines.length) };
  let offset = 0;
  for (let i = 0; i < lines.length; i++) {
    batch.bytes.set(lines[i].bytes, offset);
    offset += lines[i].bytes.length;
    batch.ends[i] = offset;
    batch.directions[i] = lines[i].direction;
  }
  return batch;
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
