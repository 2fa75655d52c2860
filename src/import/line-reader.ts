// Streams the complete lines of a transcript from a byte offset, one buffer at a time: memory
// follows the longest line, never the file. A last line without its newline is a line the
// agent is still writing: it is not yielded, and the caller's progress stops before it, so the
// next run reads it whole. Offsets are bytes (what the progress row keeps), lines are UTF-8.
import { open } from 'node:fs/promises';

export interface CompleteLine {
  /** The line's text, without its newline (and without a CR before it). */
  readonly text: string;
  /** Byte offset just after this line's newline: where the next run starts if it stops here. */
  readonly end: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const MIN_CHUNK = 64 * 1024;

export async function* readCompleteLines(path: string, start: number, chunkBytes = 1 << 20): AsyncGenerator<CompleteLine> {
  const file = await open(path, 'r');
  try {
    // No larger than what is there to read (at least 64 KiB, for what is appended meanwhile): most
    // transcripts are far below 1 MiB, and a fresh 1 MiB per file left tens of MB of buffers
    // waiting for the collector over a run of thousands of files.
    const { size } = await file.stat();
    const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(MIN_CHUNK, size - start)));
    let position = start; // the file offset chunk[0] was read from
    let pending: Buffer[] = []; // the start of a line that spans reads (copied: chunk is reused)
    for (;;) {
      const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) return; // EOF: whatever is pending is a half-written line
      let from = 0;
      for (let i = chunk.indexOf(NEWLINE); i !== -1 && i < bytesRead; i = chunk.indexOf(NEWLINE, i + 1)) {
        let bytes = chunk.subarray(from, i);
        if (pending.length) bytes = Buffer.concat([...pending, bytes]);
        pending = [];
        if (bytes.length && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
        yield { text: bytes.toString('utf8'), end: position + i + 1 };
        from = i + 1;
      }
      if (from < bytesRead) pending.push(Buffer.from(chunk.subarray(from, bytesRead)));
      position += bytesRead;
    }
  } finally {
    await file.close();
  }
}
