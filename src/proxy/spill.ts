// The hand-over at exit goes through a file, not the IPC channel: a channel whose reader is
// blocked (the writer inside a synchronous SQLite busy wait) accepts only what fits in the
// socket's buffer, and the proxy leaves before the rest is written — those lines were lost.
// A file is written at once whatever the writer is doing; the writer reads and removes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { LineBatch } from './writer-protocol.js';

/** Writes the batches to a new private file; its path, or null when it cannot be written (the channel is the fallback). */
export function spillBatches(batches: readonly LineBatch[]): string | null {
  try {
    const file = join(mkdtempSync(join(tmpdir(), 'subagent-context-proxy-')), 'handover.bin');
    writeFileSync(file, serialize(batches), { mode: 0o600 });
    return file;
  } catch {
    return null;
  }
}

/** Reads the batches back and removes the file and its folder. */
export function readSpill(file: string): LineBatch[] {
  try {
    return deserialize(readFileSync(file)) as LineBatch[];
  } finally {
    rmSync(dirname(file), { recursive: true, force: true });
  }
}
