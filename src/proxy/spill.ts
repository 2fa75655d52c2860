// The hand-over at exit goes through a file, not the IPC channel: a channel whose reader is
// busy (the writer inside a batch: its statements run synchronously) accepts only what fits in
// the socket's buffer, and the proxy leaves before the rest is written — those lines were lost.
// A file is written at once whatever the writer is doing; the writer reads and removes it.
// A writer that stops before reading it (killed, crashed) leaves it behind, holding the
// session's tool calls: the next writer to start removes it and says so (sweepStaleSpills).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { LineBatch } from './writer-protocol.js';

const FOLDER_PREFIX = 'subagent-context-handover-';
/** The file names the writer it is meant for, so a sweeper can tell a live hand-over from a stale one. */
const FILE_NAME = /^handover-(\d+)\.bin$/;
/** Past a day a hand-over is stale whoever holds its pid now (pids are reused). */
const STALE_MS = 24 * 60 * 60 * 1000;

/** Writes the batches to a new private file for the writer `readerPid`; its path, or null when it cannot be written (the channel is the fallback). */
export function spillBatches(batches: readonly LineBatch[], readerPid: number): string | null {
  let folder: string | undefined;
  try {
    folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX));
    const file = join(folder, `handover-${readerPid}.bin`);
    writeFileSync(file, serialize(batches), { mode: 0o600 });
    return file;
  } catch {
    if (folder) rmSync(folder, { recursive: true, force: true });
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

export interface StaleHandover {
  file: string;
  /** Lines it held, never written; null when it could not be read. */
  lines: number | null;
}

/**
 * Removes this user's hand-overs whose writer is gone (or that are over a day old) and returns
 * what they held. A hand-over whose writer is alive is left alone: it is being read.
 */
export function sweepStaleSpills(now = Date.now()): StaleHandover[] {
  const removed: StaleHandover[] = [];
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((n) => n.startsWith(FOLDER_PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const folder = join(tmpdir(), name);
    try {
      const folderStat = statSync(folder);
      if (!folderStat.isDirectory() || folderStat.uid !== process.getuid?.()) continue;
      const files = readdirSync(folder);
      const match = files.length === 1 ? FILE_NAME.exec(files[0]) : null;
      if (!match) continue; // not a hand-over's shape: not ours to judge
      const file = join(folder, files[0]);
      if (isAlive(Number(match[1])) && now - statSync(file).mtimeMs < STALE_MS) continue;
      removed.push({ file, lines: linesIn(file) });
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // gone meanwhile (its writer read it, or another sweeper removed it)
    }
  }
  return removed;
}

function linesIn(file: string): number | null {
  try {
    return (deserialize(readFileSync(file)) as LineBatch[]).reduce((n, batch) => n + batch.ends.length, 0);
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
  return !isZombie(pid);
}

/** A writer that died while its parent was gone stays a zombie until something reaps it (Linux: /proc; elsewhere, not known). */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
