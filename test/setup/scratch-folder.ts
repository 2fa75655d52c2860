// vitest globalSetup, first of all: the run's scratch files go to a folder of their own in
// memory (tmpfs, /dev/shm) where the machine has one with room, by pointing TMPDIR at it before
// anything makes a temp file. Every temp file of the run then lands there: the test PostgreSQL's
// data directory and the databases it copies per test, the SQLite copies, the consumer
// projects of the packaging suites, and the same in every child process (they inherit TMPDIR).
// Why: the suite creates and deletes hundreds of thousands of files (a PostgreSQL database copy
// alone is about 330), and on this machine's ext4 (no journal) creating a file after many were
// deleted scans the inode bitmaps past every recently freed inode (the kernel's
// recently_deleted(), under find_inode_bit()): a copy of the test template took 219 ms there,
// 214 of them the server's system CPU, against 12 ms on tmpfs, and the run spent 242 of its 680
// CPU-s in the kernel (docs/testing.md, "Where the time goes"). A TMPDIR set by the caller is kept, and a machine
// without a writable tmpfs with room keeps its usual temp folder: only the speed differs.
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** The run's peak in /dev/shm was about 0.7 GB (2026-12-06); this leaves the rest of the machine room. */
const MIN_FREE_BYTES = 4 * 2 ** 30;
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';

/** /dev/shm when it is a tmpfs with MIN_FREE_BYTES free to this user, else undefined. */
function memoryFolder(): string | undefined {
  try {
    const fs = statfsSync(SHM);
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_FREE_BYTES ? SHM : undefined;
  } catch {
    return undefined; // no /dev/shm (macOS, some containers)
  }
}

export default function setup() {
  const parent = process.env.TMPDIR ? undefined : memoryFolder();
  if (parent === undefined) return;
  let dir: string;
  try {
    dir = mkdtempSync(join(parent, 'subagent-context-tests-'));
  } catch {
    return; // not writable here: the usual temp folder
  }
  try {
    // As /tmp is: the servers the suite starts run as `nobody` and keep their files here too.
    chmodSync(dir, 0o1777);
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  process.env.TMPDIR = dir;
  return () => {
    // Last of the teardowns (globalSetup tears down in reverse): the PostgreSQL data is here.
    delete process.env.TMPDIR;
    rmSync(dir, { recursive: true, force: true });
  };
}
