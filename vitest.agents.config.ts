import { defineConfig } from 'vitest/config';

// `npm run test:agents`: the real agents (test/agents/*.test.ts), run inside a loopback-only
// network namespace by scripts/offline.ts, with the same PostgreSQL global setup as `npm test`
// (the server starts inside the namespace too). One agent at a time: each is a heavy process.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    reporters: ['default', './test/setup/summary-reporter.ts'],
    globalSetup: ['test/setup/postgres-server.ts', 'test/setup/template-databases.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
