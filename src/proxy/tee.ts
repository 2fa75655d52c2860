// The proxy's copy of the traffic for the writer: two line taps (line-tap.ts) keep the lines
// worth parsing (wanted-lines.ts) in a bounded, drop-oldest queue (tee-queue.ts); a pump
// hands them in batches to the writer process (batch-pump.ts, writer-channel.ts), one batch in
// flight at a time; at exit the rest is handed over (hand-over.ts). Nothing here waits on the
// writer during the session: if it cannot start or dies, the relay goes on and the lines are
// counted as lost with it (or as unconfirmed, those it held). This file keeps the counts and
// decides what the exit summary says.
import { BatchPump } from './batch-pump.js';
import { handOver, type HandOver } from './hand-over.js';
import { LineTap } from './line-tap.js';
import type { RateLimitedWarn } from './rate-limited-warn.js';
import { TeeQueue } from './tee-queue.js';
import { wantedFromAgent, wantedFromClient } from './wanted-lines.js';
import { delay, WriterChannel } from './writer-channel.js';
import type { FromWriter, WriterConfig, WriterStats } from './writer-protocol.js';

export interface TeeLimits {
  maxLines: number;
  maxBytes: number;
  maxLineBytes: number;
}

/** How long the proxy, leaving, waits for the writer to listen, and for the hand-over to reach the channel. */
const HANDOVER_MS = 2_000;

// The byte bound is the memory bound; the line bound only caps the per-line overhead (about
// 150 bytes each), high enough that a burst of small updates is held, not dropped.
export const DEFAULT_TEE_LIMITS: TeeLimits = { maxLines: 100_000, maxBytes: 64 * 1024 * 1024, maxLineBytes: 16 * 1024 * 1024 };

export interface TeeSummary extends WriterStats {
  /** Lines dropped because the queue was full (the oldest first). */
  dropped: number;
  /** Lines the writer did not write: cut off by its time cap, or not handed over at exit. */
  unwritten: number;
  /** Lines left to the writer to finish in the background after the proxy exits. */
  background: number;
  oversize: number;
  unavailable: boolean;
  /** Lines the writer process never recorded because it exited (still queued, or offered after), and why it exited. */
  writerLost: number;
  /**
   * Lines in the writer's hands (on the channel, or in the hand-over file) that it had not
   * confirmed when it exited: it may have committed them (its confirmation follows the commit),
   * so they are counted neither as written nor as lost.
   */
  writerUnconfirmed: number;
  writerGone: string | null;
}

export class Tee {
  readonly fromClient: LineTap;
  readonly fromAgent: LineTap;
  private readonly queue: TeeQueue;
  private readonly pump: BatchPump;
  private readonly writer: WriterChannel;
  private dead = false; // the writer is gone, or left to finish alone
  private oversize = 0;
  private unavailable = false;
  private writerLost = 0;
  private writerUnconfirmed = 0;
  private writerGone: string | null = null;
  private stats: WriterStats = { lines: 0, recognized: 0, written: 0, failed: 0, recognizerErrors: 0, unrecognizedDelegations: 0, ledgerFailed: 0 };
  /** Set while the proxy waits for the writer to finish at exit: its 'closed' (or its death) ends the wait. */
  private closed: ((unwritten: number) => void) | null = null;
  /** The exit's hand-over, once made: its batches not yet on the channel never reached the writer. */
  private handed: HandOver | null = null;

  constructor(
    config: WriterConfig,
    private readonly warn: RateLimitedWarn,
    limits: TeeLimits = DEFAULT_TEE_LIMITS,
    writerScript?: string, // tests start a stand-in writer (writer-channel.ts)
  ) {
    this.queue = new TeeQueue(limits.maxLines, limits.maxBytes);
    const tap = (direction: 0 | 1, wanted: (line: Buffer) => boolean) =>
      new LineTap({
        maxLineBytes: limits.maxLineBytes,
        wanted,
        onLine: (bytes) => this.offer(direction, bytes),
        onOversize: () => void this.oversize++,
      });
    this.fromClient = tap(0, wantedFromClient);
    this.fromAgent = tap(1, wantedFromAgent);
    this.writer = new WriterChannel(config, { message: (m) => this.onMessage(m), gone: (reason) => this.die(reason) }, writerScript);
    this.pump = new BatchPump(this.queue, (batch) => this.writer.send(batch));
  }

  private offer(direction: 0 | 1, bytes: Buffer): void {
    if (this.dead) {
      if (this.writerGone !== null) this.writerLost++;
      else this.queue.dropped++;
      return;
    }
    this.queue.push({ direction, bytes });
    this.pump.offered();
  }

  private onMessage(m: Exclude<FromWriter, { type: 'hello' }>): void {
    switch (m.type) {
      case 'ready':
        if (!m.migrationsOk) this.warn.always('a migration step failed (see the WARN above); the next run retries it');
        return this.pump.writerReady();
      case 'unavailable':
        this.warn.always(`cannot record: ${m.error}; the session goes on unrecorded`);
        this.unavailable = true;
        return this.pump.writerReady(); // the writer still reads (and counts) what it is sent
      case 'warn':
        return this.warn.warn(m.text);
      case 'done':
        this.stats = m.stats;
        return this.pump.batchDone();
      case 'closed':
        this.stats = m.stats;
        return this.closed?.(m.unwritten);
    }
  }

  private die(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.pump.stop();
    this.writerGone = reason;
    // Still queued, or handed over but not on the channel yet: lost with the writer, and said so
    // (not as a full queue, nor as a time cap at exit). In its hands and not confirmed: perhaps
    // committed just before it died, so unknown.
    const unsent = this.handed?.unsentLines() ?? 0;
    this.writerUnconfirmed = Math.max(0, this.writer.sentLines - unsent - this.stats.lines);
    this.writerLost += unsent + this.queue.takeAll().length;
    if (this.closed) return this.closed(0);
    this.warn.always(`${reason}; the session goes on unrecorded`);
  }

  private summary(unwritten: number, background: number): TeeSummary {
    return {
      ...this.stats,
      dropped: this.queue.dropped,
      unwritten,
      background,
      oversize: this.oversize,
      unavailable: this.unavailable,
      writerLost: this.writerLost,
      writerUnconfirmed: this.writerUnconfirmed,
      writerGone: this.writerGone,
    };
  }

  /**
   * The agent has exited: hands everything still queued to the writer and waits at most
   * `foregroundMs` for it to be written. A writer that needs longer is left to finish alone
   * (detached, for at most `backgroundMs`); the proxy does not wait for it.
   */
  async close(foregroundMs: number, backgroundMs: number): Promise<TeeSummary> {
    this.pump.stop();
    this.writer.reportPendingFailure(); // a send failed in the session: nothing is handed to that writer
    if (this.dead) return this.summary(0, 0);
    if (!(await this.writer.listens(HANDOVER_MS)) || this.dead) {
      this.dead = true;
      this.writer.kill(); // never started (or died): nothing was sent to it
      return this.summary(this.queue.takeAll().length, 0);
    }
    // Not waiting for 'ready' or 'done': the writer reads the channel into its own backlog.
    const handed = (this.handed = handOver(this.writer, this.queue, backgroundMs));
    const ended = new Promise<number>((r) => (this.closed = r));
    const unwritten = await Promise.race([ended, delay(foregroundMs).then(() => null)]);
    // A send failed during the wait and the writer's exit did not come: it is unreachable, and
    // what it was handed is "recorded or not", never "left to the writer" (die counts it).
    if (unwritten === null && this.writer.reportPendingFailure()) return this.summary(0, 0);
    this.dead = true;
    if (unwritten !== null) return this.summary(unwritten, 0);
    // The writer goes on alone. What it has not taken off the channel yet must be on it
    // before the proxy exits (bounded: a writer that reads nothing any more gets no longer).
    await Promise.race([handed.flushed, delay(HANDOVER_MS)]);
    const lost = handed.unsentLines();
    const background = Math.max(0, this.writer.sentLines - lost - this.stats.lines);
    const result = this.summary(lost, background);
    // Said before leaving, so the writer's log counts only what this summary does not.
    await this.writer.sendWithin({ type: 'reported', stats: this.stats }, HANDOVER_MS);
    this.writer.leave();
    return result;
  }
}
