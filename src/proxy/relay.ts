// One direction of the relay: every chunk read from `source` is written to `dest` as it came —
// the same bytes, never re-serialized — and only then shown to the tee (which copies what it
// keeps). Backpressure is the pipe's own: a destination that is not draining pauses the source.
import type { Readable, Writable } from 'node:stream';

export interface RelayEnds {
  /** The source ended (EOF); the destination has been ended too when `endDest`. */
  onEnd(): void;
  /** The destination failed (EPIPE: the reader is gone). */
  onDestError(err: Error): void;
}

export function relay(source: Readable, dest: Writable, tap: (chunk: Buffer) => void, endDest: boolean, ends: RelayEnds): void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    source.resume();
  };
  source.on('data', (chunk: Buffer) => {
    if (dest.destroyed || !dest.writable) return; // the reader is gone: what it cannot read is discarded, as a closed pipe would
    if (!dest.write(chunk) && !waiting) {
      waiting = true;
      source.pause();
      dest.once('drain', resume);
    }
    try {
      tap(chunk);
    } catch {
      // the tee never breaks the relay; its own failures are counted where they happen
    }
  });
  source.on('end', () => {
    if (endDest && !dest.destroyed) dest.end();
    ends.onEnd();
  });
  source.on('error', () => {}); // a read error ends the stream; 'close' follows
  dest.on('error', (err) => {
    if (waiting) resume();
    ends.onDestError(err);
  });
}
