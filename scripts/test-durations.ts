// Writes test/setup/file-durations.json, the duration of each test file in the checkout's last
// whole `vitest run` (vitest's own cache under node_modules/.vite), for the longest-first order
// of a checkout that has no such cache: a fresh clone, CI (test/setup/longest-first-sequencer.ts).
// Run after a full `vitest run` on a quiet machine; a file the list lacks only starts first.
//   npx tsx scripts/test-durations.ts
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheRoot = join('node_modules', '.vite', 'vitest');
const caches = readdirSync(cacheRoot).map((hash) => join(cacheRoot, hash, 'results.json'));
if (caches.length !== 1) throw new Error(`test-durations: expected one vitest cache under ${cacheRoot}, found ${caches.length}`);
const { results } = JSON.parse(readFileSync(caches[0], 'utf8')) as { results: Array<[string, { duration: number; failed: boolean }]> };
const durations = Object.fromEntries(
  results
    .map(([key, r]) => [key.slice(key.indexOf(':') + 1), Math.round(r.duration / 100) / 10] as const)
    // The cache keeps files since removed: only those that are here.
    .filter(([path]) => path.startsWith('test/') && !path.startsWith('test/agents/') && existsSync(path))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);
const out = join('test', 'setup', 'file-durations.json');
writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test-durations: ${Object.keys(durations).length} files → ${out}`);
