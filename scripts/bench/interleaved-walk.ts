// Issue 32: the PostgreSQL chunked walk on stores whose messages interleave more sessions than
// the benchmark generator's four. Builds a throwaway database of sparse-1m's size (1M messages in
// 8,334 sessions, about 120 messages a session, 200 subagent messages), each message going in
// turn to one of K consecutive sessions, so a heap page holds messages of up to K sessions (and
// at most as many as fit on it). Prints the walk's read amplification (./lib/walk-pages.ts),
// then times the single statement against runMigrations()' chunked step, alternately, and drops
// the database. Not a section of `npm run bench`: a profiling tool (BENCHMARKS.md, "Issue 32,
// the walk's reads").
//   tsx scripts/bench/interleaved-walk.ts --interleave 4,16,64 [--runs 3] [--windows]
//   --windows             also time the created_at window walk, a prototype (./lib/window-walk.ts)
//   --session-orders      also time the session walk prototypes (./lib/session-order-walk.ts): sessions in
//                         created_at order with a bitmap heap scan per chunk, the same in key order, and
//                         created_at order with the planner's own scan
//   --database <name>     measure a benchmark store of the cached cluster instead (bench_sparse_1m; --interleave ignored)
//   PROGRESS=1   count the chunks through onBackfillProgress (which adds a count query per chunk to the timing)
import { join } from 'node:path';
import type pg from 'pg';
import { parseArgs } from 'node:util';
import * as postgres from '../../generated/postgres/index.js';
import { createPostgresStore, MIGRATION_STEP } from '../../src/index.js';
import { ACTIVATION_KEYS } from '../../src/activation-keys.js';
import { BACKFILL_PROGRESS_KEYS } from '../../src/migrations/backfill-step.js';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.js';
import { clientFor, createDatabase, databaseUrl, poolFor } from '../lib/postgres-database.js';
import { amplification, byCreatedAt, byKey, sessionPages, tablePages } from './lib/walk-pages.js';
import { readPostgresManifest, resetPostgresStore } from './lib/synthetic-store.js';
import { sessionOrderWalk } from './lib/session-order-walk.js';
import { windowWalk } from './lib/window-walk.js';
import { postgresSingleStatement } from './single-statement.js';

const { values } = parseArgs({
  options: {
    interleave: { type: 'string', default: '4,16,64' },
    runs: { type: 'string', default: '3' },
    windows: { type: 'boolean', default: false },
    'session-orders': { type: 'boolean', default: false },
    database: { type: 'string' },
  },
});
const MESSAGES = 1_000_000;
const SESSIONS = 8_334;
/** One message in this many is a subagent message: 200 rows, as on sparse-1m. */
const SUBAGENT_EVERY = 5_000;

/** Host tables, then sessions (keys in random order, as UUIDs are) and messages, each message in turn in one of `k` consecutive sessions. */
function seed(k: number): string[] {
  return [
    postgres.hostSchema.map((s) => s.sql).join('\n'),
    `INSERT INTO task_sessions (id, task_id, created_at, updated_at)
     SELECT md5('s' || j), 'task-' || (j / 4), timestamp '2026-07-01' + (j::bigint * ${MESSAGES} / ${SESSIONS}) * interval '1 second', timestamp '2026-07-01'
       FROM generate_series(0, ${SESSIONS - 1}) AS j`,
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, content, type, metadata, created_at, updated_at)
     SELECT 'm' || lpad(i::text, 8, '0'), md5('s' || x.j), 'task-' || (x.j / 4), 'turn-' || (i / 7),
            'message ' || i || ' with some ordinary text content to give rows a realistic width', 'message',
            CASE WHEN i % ${SUBAGENT_EVERY} = 0
                 THEN jsonb_build_object('tool_call_id', 'toolu_' || i, 'status', 'completed', 'normalized',
                        jsonb_build_object('kind', 'subagent_task', 'subagent_task', jsonb_build_object('model', 'claude-opus-5', 'total_tokens', i)))::text
                 ELSE jsonb_build_object('kind', 'text', 'text', 'hello ' || i)::text END,
            timestamp '2026-07-01' + i * interval '1 second', NULL
       FROM generate_series(0, ${MESSAGES - 1}) AS i,
            LATERAL (SELECT least(${SESSIONS - 1}, i::bigint * ${SESSIONS} / ${MESSAGES} + i % ${k})::int AS j) AS x`,
    'VACUUM ANALYZE task_sessions',
    'VACUUM ANALYZE task_session_messages',
  ];
}

/** The rows compared across the paths, as text (timestamps to the microsecond), in key order. */
async function rowsText(client: pg.Client): Promise<string> {
  const rows = await client.query(
    `SELECT task_session_id, tool_call_id, tool_status, total_tokens::text, tool_use_count::text, duration_ms::text, observed_at::text,
            settled_at::text, updated_at::text, model, agent_status, subagent_type, description
       FROM task_session_subagents ORDER BY task_session_id, tool_call_id`,
  );
  return JSON.stringify(rows.rows);
}

type Path = 'single' | 'chunked' | 'windows' | 'createdBitmap' | 'keyBitmap' | 'createdPlanner' | 'createdBitmapNoLock';

/**
 * `k`: build a store interleaving k sessions, dropped after; a name: that benchmark store of
 * the cluster (it must carry bench_store_manifest), reset as the benchmarks leave it.
 */
async function measure(serverUrl: string, k: number | string, runs: number): Promise<void> {
  const built = typeof k === 'number';
  const db = built ? await createDatabase(serverUrl, `bench_interleave_${k}`, { replaceExisting: true }) : undefined;
  const url = db?.url ?? databaseUrl(serverUrl, k as string);
  const manifest = built ? null : await readPostgresManifest(url);
  if (!built && !manifest) throw new Error(`${k} is not a benchmark store (no bench_store_manifest): not touching it`);
  const client = clientFor(url);
  await client.connect();
  const pool = poolFor({ connectionString: url, max: 2 });
  try {
    if (built) for (const statement of seed(k)) await client.query(statement);
    const pages = await tablePages(client);
    const messages = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM task_session_messages')).rows[0].n);
    const sessions = await sessionPages(client);
    const keyOrder = [...sessions].sort(byKey);
    const timeOrder = [...sessions].sort(byCreatedAt);
    const show = (order: typeof sessions) => [15, 50].map((n) => `${n} chunks ${amplification(order, n, pages).toFixed(2)}×`).join(', ');
    console.log(
      `interleave ${k}: ${pages} heap pages (${(messages / pages).toFixed(1)} messages a page); session-key order ${show(keyOrder)}; created_at order ${show(timeOrder)}`,
    );
    const store = createPostgresStore(pool);
    await store.runMigrations({ backfill: 'defer' });
    const clear = async () => {
      await client.query('TRUNCATE task_session_subagents');
      const keys = [ACTIVATION_KEYS.captureSince, ACTIVATION_KEYS.backfillThrough, BACKFILL_PROGRESS_KEYS.through, BACKFILL_PROGRESS_KEYS.cursor];
      await client.query('DELETE FROM kandev_meta WHERE key = ANY($1::text[])', [keys]);
    };
    let chunks = 0;
    const run: Record<Path, () => Promise<void>> = {
      single: async () => void (await postgresSingleStatement(client)),
      chunked: async () => {
        const report = await store.runMigrations(process.env.PROGRESS ? { onBackfillProgress: () => void chunks++ } : {});
        if (!report.steps.some((s) => s.name === MIGRATION_STEP.backfillSubagentContexts && s.status === 'applied'))
          throw new Error(`runMigrations() applied no ${MIGRATION_STEP.backfillSubagentContexts} step: ${JSON.stringify(report)}`);
      },
      windows: async () => void (chunks = (await windowWalk(client)).chunks),
      createdBitmap: async () => void (chunks = (await sessionOrderWalk(client, { order: 'created_at', bitmap: true })).chunks),
      keyBitmap: async () => void (chunks = (await sessionOrderWalk(client, { order: 'key', bitmap: true })).chunks),
      createdBitmapNoLock: async () => void (chunks = (await sessionOrderWalk(client, { order: 'created_at', bitmap: true, lock: false })).chunks),
      createdPlanner: async () => void (chunks = (await sessionOrderWalk(client, { order: 'created_at', bitmap: false })).chunks),
    };
    const paths: Path[] = ['single', 'chunked'];
    if (values.windows) paths.push('windows');
    if (values['session-orders']) paths.push('createdBitmap', 'keyBitmap', 'createdPlanner', 'createdBitmapNoLock');
    for (let r = 0; r < runs; r++) {
      // Each run starts with another path, so no path always runs on the cache another left.
      const order = paths.map((_, i) => paths[(i + r) % paths.length]);
      const ms = {} as Record<Path, number>;
      const text = {} as Record<Path, string>;
      const counts = {} as Record<Path, number>;
      for (const path of order) {
        await clear();
        chunks = 0;
        const t = performance.now();
        await run[path]();
        ms[path] = performance.now() - t;
        counts[path] = chunks;
        text[path] = await rowsText(client);
      }
      for (const path of paths) if (text[path] !== text.single) throw new Error(`the ${path} path wrote other rows than the single statement`);
      const rows = (JSON.parse(text.single) as unknown[]).length;
      const shown = paths
        .filter((p) => p !== 'single')
        .map((p) => `${p} ${ms[p].toFixed(0)} ms${counts[p] ? ` (${counts[p]} chunks)` : ''} ratio ${(ms[p] / ms.single).toFixed(2)}`);
      console.log(
        `interleave ${k} run ${r} (${order.join(', ')}): single ${ms.single.toFixed(0)} ms (${rows} rows, the same in every path); ${shown.join('; ')}`,
      );
    }
  } finally {
    if (manifest) await resetPostgresStore(client, manifest); // the package's tables dropped again
    await pool.end();
    await client.end();
    await db?.drop();
  }
}

async function main() {
  const server = await startEmbeddedPostgres({ dataDir: join(process.cwd(), '.bench-cache', 'pg') });
  try {
    if (values.database) await measure(server.url, values.database, Number(values.runs));
    else for (const k of values.interleave!.split(',').map(Number)) await measure(server.url, k, Number(values.runs));
  } finally {
    await server.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
