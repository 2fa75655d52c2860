// Lines travel to the writer as batches: one buffer with the lines' end offsets and directions
// (writer-protocol.ts LineBatch), so each batch costs one copy and one IPC message.
import type { TeeLine } from './tee-queue.js';
import type { LineBatch } from './writer-protocol.js';

/** Lines per batch: one transaction each, so a burst commits (and reports progress) in steps,
 * and the writer, between two, reads its channel and keeps its time cap. */
export const MAX_BATCH_LINES = 256;

export function packBatch(lines: readonly TeeLine[]): LineBatch {
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
