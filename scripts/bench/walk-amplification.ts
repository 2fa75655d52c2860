// Issue 32: how many times a chunked backfill walk reads the host's messages table, computed
// from where the messages really sit (PostgreSQL ctid pages) on a cached benchmark store, for
// two orders of the host's sessions split into N equal chunks: the walk's session-key order,
// and the sessions' created_at order. A chunk reads every heap page holding a message of one of
// its sessions, so the sum of the chunks' distinct pages over the table's pages is the walk's
// read amplification (1.00: each page once, as the single statement's sequential scan reads
// it). Not a section of `npm run bench`: a profiling tool, printing one line per chunk count
// (BENCHMARKS.md, "Issue 32").
//   tsx scripts/bench/walk-amplification.ts --profile sparse-1m [--chunks 1,2,4,15,50,200]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { clientFor } from '../lib/postgres-database.js';
import { STORE_PROFILES, type StoreProfileName } from './lib/synthetic-history.js';
import { ensurePostgresStore } from './lib/synthetic-store.js';

const { values } = parseArgs({ options: { profile: { type: 'string', default: 'sparse-1m' }, chunks: { type: 'string', default: '1,2,4,15,50,200' } } });

interface SessionPages {
  id: string;
  createdAt: Date;
  /** The heap pages (block numbers) holding this session's messages. */
  pages: number[];
}

/** Sum over `chunks` equal runs of `order` of the pages each run touches, over the table's pages. */
function amplification(order: SessionPages[], chunks: number, tablePages: number): number {
  const per = Math.ceil(order.length / chunks);
  let touched = 0;
  for (let i = 0; i < order.length; i += per) {
    const pages = new Set<number>();
    for (const session of order.slice(i, i + per)) for (const page of session.pages) pages.add(page);
    touched += pages.size;
  }
  return touched / tablePages;
}

/** Byte order, as the walk's `ORDER BY s.id` on the benchmark stores' C-collated keys. */
const byKey = (a: SessionPages, b: SessionPages) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function main() {
  const profile = STORE_PROFILES[values.profile as StoreProfileName];
  if (!profile) throw new Error(`--profile: one of ${Object.keys(STORE_PROFILES).join(', ')}`);
  const server = await startEmbeddedPostgres({ dataDir: join(process.cwd(), '.bench-cache', 'pg') });
  try {
    const client = clientFor(await ensurePostgresStore(server.url, server.urlFor, profile));
    await client.connect();
    try {
      const tablePages = Number(
        (await client.query<{ pages: string }>(`SELECT pg_relation_size('task_session_messages') / current_setting('block_size')::int AS pages`)).rows[0].pages,
      );
      // (ctid::text::point)[0] is the tuple's block number: the page a chunk's scan must read.
      const sessions = (
        await client.query<{ id: string; created_at: Date; pages: number[] }>(
          `SELECT s.id, s.created_at, array_agg(DISTINCT (m.ctid::text::point)[0]::int) AS pages
             FROM task_sessions AS s JOIN task_session_messages AS m ON m.task_session_id = s.id
            GROUP BY s.id, s.created_at`,
        )
      ).rows.map((r) => ({ id: r.id, createdAt: r.created_at, pages: r.pages }));
      const keyOrder = [...sessions].sort(byKey);
      const timeOrder = [...sessions].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byKey(a, b));
      console.log(`postgres ${profile.name}: ${sessions.length} sessions with messages, ${tablePages} heap pages`);
      for (const chunks of values.chunks!.split(',').map(Number)) {
        console.log(
          `  ${chunks} chunks: session-key order ${amplification(keyOrder, chunks, tablePages).toFixed(2)}×, session created_at order ${amplification(timeOrder, chunks, tablePages).toFixed(2)}×`,
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
