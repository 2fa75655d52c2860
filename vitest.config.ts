import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/setup/longest-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real agents run in `npm run test:agents` (vitest.agents.config.ts), offline.
    exclude: [...configDefaults.exclude, 'test/agents/**'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    globalSetup: [
      'test/setup/scratch-folder.ts',
      'test/setup/registry-certificates.ts',
      'test/setup/run-folder.ts',
      'test/setup/postgres-server.ts',
      'test/setup/template-databases.ts',
    ],
    // One PostgreSQL server serves the whole run; each test opens a database of its own on it
    // (test/helpers/test-db.ts: a new database per openTestDb() call, made in beforeEach; a few
    // suites seed one once and share it). One worker more than the machine has cores: the suite
    // is mostly CPU-bound, but its tests also wait on the child processes and servers they
    // start, and with two workers on this 2-core machine the cores were idle about 18% of the
    // run. Measured 2026-12-06, scratch files on tmpfs (test/setup/scratch-folder.ts), same
    // warm state: 2 workers 322 s, 3 workers 288 s, 4 workers 316 s (docs/testing.md).
    pool: 'forks',
    maxWorkers: availableParallelism() + 1,
    // One process per worker for all of its files, not one per file: the suite is CPU-bound on
    // two cores, and a fresh process per file re-imported the package, the drivers and vitest
    // 167 times (80 s of import time; the full run took 563 s isolated, 487 s not, same
    // machine, 2026-12-05). No test relies on a fresh module registry: the package keeps no
    // module-level state that a test changes, pg's global type parsers are restored by the one
    // test that sets them, and the one spy (Date.now) is restored after each test.
    isolate: false,
    // Longest files first, from the cache or the committed figures (test/setup/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
