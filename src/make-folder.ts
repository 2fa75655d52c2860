// `mkdir -p` that ends. Node 20's `mkdirSync(path, { recursive: true })` never returns for a
// folder whose parent exists but cannot hold one (under /proc): each mkdir fails ENOENT, the
// parent's EEXIST sends it forward again, 23,000 times a second (strace), and a proxy's writer
// given `--sqlite /proc/x/y.db` spun a core for good after the proxy had exited (a review,
// 2026-12-07). Here each level is made at most once: an ENOENT after its parent exists is final.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function makeFolder(path: string): void {
  try {
    mkdirSync(path);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return; // a file there: its own error below
    if (code !== 'ENOENT' || dirname(path) === path) throw err;
  }
  makeFolder(dirname(path));
  try {
    mkdirSync(path);
  } catch (err) {
    // Made meanwhile (another process): fine; anything else, the parent now existing, is final.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) throw err;
  }
}
