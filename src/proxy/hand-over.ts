// The hand-over at exit (the agent has exited): everything the proxy still holds goes to the
// writer, then 'drain' with the background time cap. Through a file when it can (spill.ts: a
// writer inside a batch does not read its channel until the batch is done, and the channel
// takes only what fits in its socket buffer), else over the channel. The writer reads it into
// its backlog, writes it all and exits, or finishes alone if the proxy leaves first (tee.ts).
import { MAX_BATCH_LINES, packBatch } from './line-batch.js';
import { spillBatches } from './spill.js';
import type { TeeQueue } from './tee-queue.js';
import type { WriterChannel } from './writer-channel.js';
import type { LineBatch } from './writer-protocol.js';

export interface HandOver {
  /** Resolves once everything handed over is on the channel (never, if the writer reads nothing any more). */
  readonly flushed: Promise<void>;
  /** Lines of batches not on the channel yet (0 when they went through the file). */
  unsentLines(): number;
}

/** Empties `queue` into the writer's hands and sends the drain. */
export function handOver(channel: WriterChannel, queue: TeeQueue, backgroundMs: number): HandOver {
  const rest: LineBatch[] = [];
  while (queue.length > 0) rest.push(packBatch(queue.take(MAX_BATCH_LINES)));
  const spill = rest.length > 0 ? spillBatches(rest, channel.pid) : null;
  const flushed: Promise<void>[] = [];
  let unsent = 0;
  if (spill) channel.sentLines += rest.reduce((n, b) => n + b.ends.length, 0);
  else {
    for (const batch of rest) {
      const lines = batch.ends.length;
      unsent += lines;
      flushed.push(new Promise<void>((r) => channel.send(batch, () => ((unsent -= lines), r()))));
    }
  }
  // Without the drain the writer would take the default cap.
  flushed.push(new Promise<void>((r) => channel.send({ type: 'drain', backgroundMs, ...(spill ? { spill } : {}) }, r)));
  return { flushed: Promise.all(flushed).then(() => undefined), unsentLines: () => unsent };
}
