// `tsx scripts/bench/scale-run.ts sparse-1m sparse-5m sparse-20m [--runs n]`: the scaling
// measurements of issue 32 item 5 on PostgreSQL, one child process per store
// (./scale-measure.ts), the stores generated or found cached first (the 1M base message by
// message, the larger ones set-based: scripts/bench/lib/replicated-store.ts). Prints one JSON line
// per store and writes them all to .bench-cache/scale-results.json. --port P uses the cluster
// already running on that port (its generator's) instead of starting it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { ensureReplicatedPostgresStore, REPLICATED_PROFILES, type ReplicatedProfileName } from './lib/replicated-store.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensurePostgresStore } from './lib/synthetic-store.js';
import { runWorker } from './run-worker.js';
import type { ScaleMeasurement } from './scale-measure.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '1' }, port: { type: 'string' } }, allowPositionals: true });
  const cacheDir = join(process.cwd(), '.bench-cache');
  // --port: the benchmarks' cluster already running (a generator holds it), used as it is.
  const urlFor = (port: string) => (database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  const server = values.port
    ? { url: urlFor(values.port)('postgres'), urlFor: urlFor(values.port), stop: async () => {} }
    : await startEmbeddedPostgres({ dataDir: join(cacheDir, 'pg') });
  const results: ScaleMeasurement[] = [];
  try {
    const urls: string[] = [];
    for (const name of positionals) {
      if (Object.hasOwn(REPLICATED_PROFILES, name)) urls.push(await ensureReplicatedPostgresStore(server.url, server.urlFor, name as ReplicatedProfileName));
      else if (Object.hasOwn(STORE_PROFILES, name)) urls.push(await ensurePostgresStore(server.url, server.urlFor, STORE_PROFILES[name as StoreProfileName]));
      else throw new Error(`unknown store ${name}`);
    }
    for (const url of urls) {
      const m = (await runWorker<ScaleMeasurement>('scale-measure.ts', ['--url', url, '--runs', values.runs!]))!;
      results.push(m);
      process.stdout.write(`${JSON.stringify(m)}\n`);
      writeFileSync(join(cacheDir, `scale-results-${positionals.join('+')}.json`), `${JSON.stringify(results, null, 2)}\n`);
    }
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`scale-run: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
