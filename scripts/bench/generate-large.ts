// `tsx scripts/bench/generate-large.ts sparse-20m`: builds (or finds cached) the replicated
// PostgreSQL stores named (scripts/bench/lib/replicated-store.ts) in the benchmarks' cluster.
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { ensureReplicatedPostgresStore, REPLICATED_PROFILES, type ReplicatedProfileName } from './lib/replicated-store.js';

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  for (const n of names)
    if (!Object.hasOwn(REPLICATED_PROFILES, n)) throw new Error(`unknown store ${n}; choose from ${Object.keys(REPLICATED_PROFILES).join(', ')}`);
  const server = await startEmbeddedPostgres({ dataDir: join(process.cwd(), '.bench-cache', 'pg') });
  try {
    for (const n of names) {
      const t = performance.now();
      await ensureReplicatedPostgresStore(server.url, server.urlFor, n as ReplicatedProfileName);
      process.stderr.write(`${n}: ready in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
    }
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`generate-large: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
