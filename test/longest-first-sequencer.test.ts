// The suite's own file order (test/setup/longest-first-sequencer.ts): longest first by the run
// cache, then by the committed figures, unknown and failed files first; and vitest's shuffle
// when asked for, which a configured sequencer would otherwise override for files. The
// sequencer is given a stand-in for vitest's context: no database is involved.
import { readFileSync } from 'node:fs';
import { shuffle } from '@vitest/utils/helpers';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirstSequencer from './setup/longest-first-sequencer.js';

const ROOT = '/repo';

interface Cached {
  failed?: boolean;
  duration?: number;
}

function sequencer(cache: Record<string, Cached>, sequence: { shuffle?: boolean; seed?: number } = {}) {
  const ctx = {
    config: { root: ROOT, sequence: { shuffle: false, ...sequence } },
    cache: { getFileTestResults: (key: string) => cache[key] },
  };
  return new LongestFirstSequencer(ctx as unknown as Vitest);
}

const spec = (path: string) => ({ moduleId: `${ROOT}/${path}`, project: { name: '' } }) as unknown as TestSpecification;
const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(ROOT.length + 1));

/** The committed figures' longest and shortest files, so the test follows the file when it is regenerated. */
const committed = JSON.parse(readFileSync(new URL('./setup/file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;
const byCommitted = Object.entries(committed).sort((a, b) => b[1] - a[1]);
const LONGEST = byCommitted[0]![0];
const SHORTEST = byCommitted[byCommitted.length - 1]![0];

describe('the suite order (longest-first sequencer)', () => {
  it('runs failed files first, then files nothing knows, then the longest by the cache, then by the committed figures', async () => {
    const files = ['test/b.test.ts', SHORTEST, 'test/unknown.test.ts', 'test/a.test.ts', LONGEST, 'test/failed.test.ts'].map(spec);
    const order = await sequencer({
      ':test/a.test.ts': { duration: 5_000 },
      ':test/b.test.ts': { duration: 9_000_000 }, // longer than any committed figure
      ':test/failed.test.ts': { failed: true, duration: 1 },
      // The cache wins over the committed figure for a file both know.
      [`:${SHORTEST}`]: { duration: 8_000_000 },
    }).sort(files);
    expect(paths(order)).toEqual(['test/failed.test.ts', 'test/unknown.test.ts', 'test/b.test.ts', SHORTEST, LONGEST, 'test/a.test.ts']);
  });

  it('shuffles the files as vitest does when --sequence.shuffle is given, by its seed', async () => {
    const names = Array.from({ length: 24 }, (_, i) => `test/f${String(i).padStart(2, '0')}.test.ts`);
    const cache = Object.fromEntries(names.map((n, i) => [`:${n}`, { duration: 1000 * (i + 1) }]));
    const longestFirst = paths(await sequencer(cache).sort(names.map(spec)));
    expect(longestFirst).toEqual([...names].reverse());

    const once = paths(await sequencer(cache, { shuffle: true, seed: 42 }).sort(names.map(spec)));
    expect(once).toEqual(paths(shuffle(names.map(spec), 42))); // vitest's own file shuffle, same seed
    expect(once).not.toEqual(longestFirst);
    expect([...once].sort()).toEqual(names); // every file once
    expect(paths(await sequencer(cache, { shuffle: true, seed: 42 }).sort(names.map(spec)))).toEqual(once);
    expect(paths(await sequencer(cache, { shuffle: true, seed: 7 }).sort(names.map(spec)))).not.toEqual(once);
  });
});
