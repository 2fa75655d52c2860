// Read-only means read-only (issue 30 item 5). A WAL-mode SQLite file is read through its -shm
// index; when no connection has the database open, -shm does not exist and a reader must create
// it in the database's folder. A user who may read the file but not write the folder then gets
// SQLITE_READONLY_DIRECTORY ("attempt to write a readonly database") even on a read-only
// handle, and better-sqlite3 (built without URI filenames) cannot open it `immutable` instead.
// So `report` and `health` read a private snapshot: the file (and its -wal, if one was left)
// copied into a fresh folder of the user's own under the temporary directory, readable by them
// alone, removed when the command ends. Nobody had the store open (else -shm would exist), so
// the copy is what any reader would see; the original is never opened for writing.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** The error a read-only handle on a WAL store in a folder it cannot write raises on its first read. */
export function needsSnapshot(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'SQLITE_READONLY_DIRECTORY';
}

export interface Snapshot {
  readonly file: string;
  remove(): void;
}

export function snapshotOf(file: string): Snapshot {
  const dir = mkdtempSync(join(tmpdir(), 'subagent-context-read-')); // mode 0700
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    return { file: copy, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
