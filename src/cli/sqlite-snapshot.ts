// Read-only means read-only (issue 30 item 5). A WAL-mode SQLite file is read through its -shm
// index; when no connection has the database open, -shm does not exist and a reader must create
// it in the database's folder. A user who may read the file but not write the folder then gets
// SQLITE_READONLY_DIRECTORY ("attempt to write a readonly database") even on a read-only
// handle, and better-sqlite3 (built without URI filenames) cannot open it `immutable` instead.
// So `report` and `health` read a private snapshot: the file (and its -wal, if one was left)
// copied into a fresh folder of the user's own under the temporary directory, readable by them
// alone, removed when the command ends. Nobody had the store open (else -shm would exist), so
// the copy is what any reader would see; the original is never opened for writing.
//
// Removed when the command is interrupted too: a copy of the whole store left in /tmp by a
// Ctrl-C is a copy of its data outside the folder that guards it. While the snapshot is held,
// SIGINT, SIGTERM and SIGHUP remove it, then are raised again with no handler left, so the
// process dies by the signal as it would have (a shell reports 130, 143, 129). A handler only
// runs between statements, so a signal during a long synchronous read takes effect after it.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** The error a read-only handle on a WAL store in a folder it cannot write raises on its first read. */
export function needsSnapshot(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'SQLITE_READONLY_DIRECTORY';
}

export interface Snapshot {
  readonly file: string;
  /** Removes the copy; resolves once no signal handler of its own is left. */
  remove(): Promise<void>;
}

const INTERRUPTIONS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** One turn of the event loop and the poll phase of the next: a signal caught so far has been handled. */
const signalsDelivered = async () => {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolveTurn) => setImmediate(resolveTurn));
};

export async function snapshotOf(file: string): Promise<Snapshot> {
  let dir: string | null = null;
  const removeDir = () => {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  };
  const release = () => {
    for (const signal of INTERRUPTIONS) process.removeListener(signal, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    removeDir();
    release();
    if (process.listenerCount(signal) > 0) return; // someone else decides what this signal does
    process.kill(process.pid, signal); // no handler is left: the default action ends us
    setImmediate(() => process.exit(128 + (constants.signals[signal] ?? 0))); // only if it did not
  };
  // Installed before the folder exists, so no moment holds a copy that a signal would leave behind.
  for (const signal of INTERRUPTIONS) process.on(signal, onSignal);
  const remove = async () => {
    removeDir();
    // A signal caught while the folder was removed waits in the event loop: handled (it ends
    // the process) before the handlers go, never dropped with them.
    await signalsDelivered();
    release();
  };
  try {
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-read-')); // mode 0700
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    return { file: copy, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
