// Moves queued lines to the writer: batches of at most MAX_BATCH_LINES, one in flight at a
// time. A full batch goes at once; a partial one waits PUMP_DELAY_MS for more to share it, so
// under light traffic the IPC send, the writer's wake-up and its 'done' (which wakes the relay
// again) happen once per batch, not once per line. Nothing here waits on the writer.
import { MAX_BATCH_LINES, packBatch } from './line-batch.js';
import type { TeeQueue } from './tee-queue.js';
import type { LineBatch } from './writer-protocol.js';

/** How long a line may wait on the relay side for more to share its batch (a full batch goes at once). */
const PUMP_DELAY_MS = 50;

export class BatchPump {
  private ready = false; // the writer has opened its store (or knows it cannot)
  private busy = false; // a batch is in the writer's hands
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: TeeQueue,
    private readonly send: (batch: LineBatch) => void,
  ) {}

  /** A line was queued. */
  offered(): void {
    if (this.queue.length >= MAX_BATCH_LINES) this.pump();
    else this.arm();
  }

  /** The writer said 'ready' (or 'unavailable': it still reads and counts what it is sent). */
  writerReady(): void {
    this.ready = true;
    this.pump();
  }

  /** The writer said 'done': the batch in flight is written. */
  batchDone(): void {
    this.busy = false;
    // A full batch goes now; a partial one waits for the timer, so that under light
    // traffic the writer is not woken (and does not wake the relay) for every few lines.
    if (this.queue.length >= MAX_BATCH_LINES) this.pump();
    else if (this.queue.length > 0) this.arm();
  }

  /** No more batches: the writer is gone, or the proxy is handing over (hand-over.ts). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, PUMP_DELAY_MS);
  }

  private pump(): void {
    if (!this.ready || this.busy || this.stopped || this.queue.length === 0) return;
    this.busy = true;
    this.send(packBatch(this.queue.take(MAX_BATCH_LINES)));
  }
}
