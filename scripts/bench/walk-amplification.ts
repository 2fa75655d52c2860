// Issue 32: how many times a chunked backfill walk reads the host's messages table on a cached
// benchmark store (./lib/walk-pages.ts), for two orders of the host's sessions split into N
// equal chunks: the walk's session-key order, and the sessions' created_at order. Not a section
// of `npm run bench`: a profiling tool, printing one line per chunk count (BENCHMARKS.md,
// "Issue 32, the walk's reads").
//   tsx scripts/bench/walk-amplification.ts --profile sparse-1m [--chunks 1,2,4,15,50,200]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { clientFor } from '../lib/postgres-database.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensurePostgresStore } from './lib/synthetic-store.js';
import { amplification, byCreatedAt, byKey, sessionPages, tablePages } from './lib/walk-pages.js';

const { values } = parseArgs({ options: { profile: { type: 'string', default: 'sparse-1m' }, chunks: { type: 'string', default: '1,2,4,15,50,200' } } });

async function main() {
  const profile = STORE_PROFILES[values.profile as StoreProfileName];
  if (!profile) throw new Error(`--profile: one of ${Object.keys(STORE_PROFILES).join(', ')}`);
  const server = await startEmbeddedPostgres({ dataDir: join(process.cwd(), '.bench-cache', 'pg') });
  try {
    const client = clientFor(await ensurePostgresStore(server.url, server.urlFor, profile));
    await client.connect();
    try {
      const pages = await tablePages(client);
      const sessions = await sessionPages(client);
      const keyOrder = [...sessions].sort(byKey);
      const timeOrder = [...sessions].sort(byCreatedAt);
      console.log(`postgres ${profile.name}: ${sessions.length} sessions with messages, ${pages} heap pages`);
      for (const chunks of values.chunks!.split(',').map(Number)) {
        console.log(
          `  ${chunks} chunks: session-key order ${amplification(keyOrder, chunks, pages).toFixed(2)}×, session created_at order ${amplification(timeOrder, chunks, pages).toFixed(2)}×`,
        );
      }
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
