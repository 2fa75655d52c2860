// The order test files start in: longest first, so that no long file starts last and runs alone
// while the other workers sit idle (the makespan of a longest-first schedule is within a third of
// the best one's). vitest orders by the durations of the checkout's last run (its cache under
// node_modules/.vite), and, where it has none, by file size: in a fresh clone, CI's case, a small
// file that waits on timers (the proxy watchdog's, 12 s) started 202 s into a 215 s run and held
// the end back by 12 s. A file the cache does not know is timed by ./file-durations.json, the
// figures of a whole run committed beside this file (`npx tsx scripts/test-durations.ts` writes
// them from the cache after a full `vitest run`); a file neither knows starts first, as vitest
// starts unknown files. Failed files still start first. docs/testing.md, "Where the time goes".
// `vitest run --sequence.shuffle` shuffles the files as vitest's own sequencer does (its seed,
// `--sequence.seed`, its shuffle): a configured sequencer otherwise overrides the flag for files.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { shuffle } from '@vitest/utils/helpers';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds a test file took in a whole run, by path from the repository's root; none when the file is missing or unreadable (a merge conflict in it): only the order suffers. */
const COMMITTED = committedDurations();

function committedDurations(): Readonly<Record<string, number>> {
  try {
    const read: unknown = JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'));
    return typeof read === 'object' && read !== null ? (read as Record<string, number>) : {};
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shuffle: shuffled, seed } = this.ctx.config.sequence;
    if (shuffled) return shuffle(files, seed);
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (cached?.failed) return { failed: true, ms: Infinity };
      const committed = COMMITTED[path];
      return { failed: false, ms: cached?.duration ?? (typeof committed === 'number' ? committed * 1000 : Infinity) };
    };
    const order = new Map(files.map((spec) => [spec, known(spec)]));
    return [...files].sort((a, b) => {
      const x = order.get(a)!;
      const y = order.get(b)!;
      if (x.failed !== y.failed) return x.failed ? -1 : 1;
      return x.ms === y.ms ? 0 : x.ms > y.ms ? -1 : 1;
    });
  }
}
