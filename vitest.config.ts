import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real agents run in `npm run test:agents` (vitest.agents.config.ts), offline.
    exclude: [...configDefaults.exclude, 'test/agents/**'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    globalSetup: ['test/setup/postgres-server.ts', 'test/setup/template-databases.ts'],
    // Two cores: one worker per core. One PostgreSQL server serves the whole run; each test
    // opens a database of its own on it (test/helpers/test-db.ts: a new database per
    // openTestDb() call, made in beforeEach; a few suites seed one once and share it).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
