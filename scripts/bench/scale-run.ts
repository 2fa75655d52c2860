// `tsx scripts/bench/scale-run.ts [--dialect sqlite|postgres] sparse-1m sparse-5m sparse-20m [--runs n]`:
// the scaling measurements of issue 32 item 5, one child process per store (./scale-measure.ts
// on PostgreSQL, the default; ./scale-measure-sqlite.ts on SQLite), the stores generated or
// found cached first (the 1M base message by message, the larger ones set-based:
// scripts/bench/lib/replicated-store.ts). Prints one JSON line per store and writes them all to
// .bench-cache/scale-results-<dialect>-<stores>.json. --port P uses the PostgreSQL cluster
// already running on that port (its generator's) instead of starting it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { byDialect, dialectNamed } from '../../src/dialect.js';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { ensureReplicatedPostgresStore, ensureReplicatedSqliteStore, REPLICATED_PROFILES, type ReplicatedProfileName } from './lib/replicated-store.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensurePostgresStore, ensureSqliteStore } from './lib/synthetic-store.js';
import { runWorker } from './run-worker.js';
import type { ScaleMeasurement } from './scale-measurement.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { dialect: { type: 'string', default: 'postgres' }, runs: { type: 'string', default: '1' }, port: { type: 'string' } },
    allowPositionals: true,
  });
  const dialect = dialectNamed(values.dialect!);
  if (!dialect) throw new Error(`--dialect: sqlite or postgres, not ${values.dialect}`);
  const cacheDir = join(process.cwd(), '.bench-cache');
  const resultsFile = join(cacheDir, `scale-results-${dialect}-${positionals.join('+')}.json`);
  const results: ScaleMeasurement[] = [];
  const measure = async (script: string, args: string[]) => {
    const m = (await runWorker<ScaleMeasurement>(script, [...args, '--runs', values.runs!]))!;
    results.push(m);
    process.stdout.write(`${JSON.stringify(m)}\n`);
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  };
  await byDialect(dialect, {
    sqlite: async () => {
      const files: string[] = [];
      for (const name of positionals) {
        if (Object.hasOwn(REPLICATED_PROFILES, name)) files.push(await ensureReplicatedSqliteStore(cacheDir, name as ReplicatedProfileName));
        else if (Object.hasOwn(STORE_PROFILES, name)) files.push(await ensureSqliteStore(cacheDir, STORE_PROFILES[name as StoreProfileName]));
        else throw new Error(`unknown store ${name}`);
      }
      for (const file of files) await measure('scale-measure-sqlite.ts', ['--file', file]);
    },
    postgres: () => measurePostgres(values.port, positionals, cacheDir, measure),
  })();
}

async function measurePostgres(
  port: string | undefined,
  positionals: string[],
  cacheDir: string,
  measure: (script: string, args: string[]) => Promise<void>,
): Promise<void> {
  // --port: the benchmarks' cluster already running (a generator holds it), used as it is.
  const urlFor = (port: string) => (database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  const server = port
    ? { url: urlFor(port)('postgres'), urlFor: urlFor(port), stop: async () => {} }
    : await startEmbeddedPostgres({ dataDir: join(cacheDir, 'pg') });
  try {
    const urls: string[] = [];
    for (const name of positionals) {
      if (Object.hasOwn(REPLICATED_PROFILES, name)) urls.push(await ensureReplicatedPostgresStore(server.url, server.urlFor, name as ReplicatedProfileName));
      else if (Object.hasOwn(STORE_PROFILES, name)) urls.push(await ensurePostgresStore(server.url, server.urlFor, STORE_PROFILES[name as StoreProfileName]));
      else throw new Error(`unknown store ${name}`);
    }
    for (const url of urls) await measure('scale-measure.ts', ['--url', url]);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`scale-run: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
