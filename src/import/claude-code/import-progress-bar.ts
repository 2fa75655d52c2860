// The import's progress bar (`onProgress`, the CLI's bar on a terminal): the bytes left to read in
// the tree, counted once per transcript, and moved as each copy of it is done with, so it reaches
// its end when the last copy of the last transcript is, never before.
//
// A transcript can be listed more than once: a project folder copied beside its original holds
// the same session id, and the import reads each copy on from where the copy before stopped. The
// total counts a transcript once, at its largest copy. A copy the import leaves unread (an
// orphan, a deferred subagent, a failed lookup) moves the bar only if it is the transcript's last
// copy: an earlier one leaves its bytes to the copy after it, which reads them. Kept per
// transcript key while the run lasts (about 0.15 KB a transcript), only when a bar is shown.
import type { ImportStore } from '../import-store.js';
import { discoverProject } from './discover.js';
import { progressOf, sizeOf, workOf } from './import-work.js';

export interface ImportProgressBar {
  /** One listed copy of `transcript` is done with: `bytes` of it were read (0: left unread). */
  copyDone(transcript: string, bytes: number): void;
}

interface Share {
  /** The transcript counted up to this size (its stored progress, or its largest copy so far). */
  upTo: number;
  /** Bytes of the total the bar has not moved by yet. */
  left: number;
  /** Copies listed and not yet done with. */
  copies: number;
}

const NO_BAR: ImportProgressBar = { copyDone: () => {} };

export async function importProgressBar(
  store: ImportStore,
  from: string,
  projects: readonly string[],
  onProgress: ((done: number, total: number) => void) | undefined,
): Promise<ImportProgressBar> {
  if (!onProgress) return NO_BAR;
  const shares = new Map<string, Share>();
  let total = 0;
  // One project's names, sizes and progress at a time; silent about entries it cannot read: the
  // import's own pass reports and counts them once.
  for (const project of projects) {
    const work = workOf(discoverProject(from, project), false);
    const progress = await progressOf(store, work);
    for (const w of work) {
      const size = sizeOf(w.path);
      if (typeof size !== 'number') continue;
      let share = shares.get(w.transcript);
      if (!share) shares.set(w.transcript, (share = { upTo: progress.get(w.transcript)?.byteOffset ?? 0, left: 0, copies: 0 }));
      const more = Math.max(0, size - share.upTo);
      share.upTo += more;
      share.left += more;
      share.copies++;
      total += more;
    }
  }
  let done = 0;
  onProgress(0, total);
  return {
    copyDone(transcript, bytes) {
      const share = shares.get(transcript);
      if (!share) return; // listed only after the total was summed: not in it
      const last = --share.copies <= 0;
      const step = last ? share.left : Math.min(Math.max(0, bytes), share.left);
      share.left -= step;
      if (last) shares.delete(transcript);
      done += step;
      onProgress(done, total);
    },
  };
}
