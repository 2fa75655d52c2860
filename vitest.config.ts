import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    globalSetup: ['test/setup/postgres-server.ts'],
    // Two cores: one worker per core; each test file gets its own PostgreSQL database.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
