// `tsx scripts/bench/generate-large.ts [--dialect sqlite|postgres] sparse-5m sparse-20m`: builds
// (or finds cached) the replicated stores named (scripts/bench/lib/replicated-store.ts): in the
// benchmarks' PostgreSQL cluster (the default), or as files under .bench-cache/sqlite.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { byDialect, dialectNamed } from '../../src/dialect.js';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { ensureReplicatedPostgresStore, ensureReplicatedSqliteStore, REPLICATED_PROFILES, type ReplicatedProfileName } from './lib/replicated-store.js';

async function main(): Promise<void> {
  const { values, positionals: names } = parseArgs({ options: { dialect: { type: 'string', default: 'postgres' } }, allowPositionals: true });
  const dialect = dialectNamed(values.dialect!);
  if (!dialect) throw new Error(`--dialect: sqlite or postgres, not ${values.dialect}`);
  for (const n of names)
    if (!Object.hasOwn(REPLICATED_PROFILES, n)) throw new Error(`unknown store ${n}; choose from ${Object.keys(REPLICATED_PROFILES).join(', ')}`);
  const cacheDir = join(process.cwd(), '.bench-cache');
  const build = await byDialect(dialect, {
    sqlite: async () => ({ ensure: (n: ReplicatedProfileName) => ensureReplicatedSqliteStore(cacheDir, n), stop: async () => {} }),
    postgres: async () => {
      const server = await startEmbeddedPostgres({ dataDir: join(cacheDir, 'pg') });
      return { ensure: (n: ReplicatedProfileName) => ensureReplicatedPostgresStore(server.url, server.urlFor, n), stop: () => server.stop() };
    },
  })();
  try {
    for (const n of names) {
      const t = performance.now();
      await build.ensure(n as ReplicatedProfileName);
      process.stderr.write(`${n}: ready in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    await build.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`generate-large: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
