// Live writer: store.recordFrame() frames/s against the raw prepared upsert of the same rows,
// with the same driver and configuration — the generated statement's own SQL prepared directly
// on better-sqlite3, and its precompiled text as a named prepared statement on node-postgres.
// SQLite in WAL at synchronous NORMAL and FULL; PostgreSQL (fsync on) with 1 and 8 connections.
// Behind PgBouncer in transaction mode (DESIGN §8 "Poolers") a named statement does not work,
// so there the ceiling is the same statement unnamed — the raw upsert that works there — and
// recordFrame runs with default options (named until the first conflict, then unnamed).
// Runs alternate which path goes first; figures are medians, latencies pooled over the runs.
import { poolFor } from '../lib/postgres-database.js';
import type { RunningPgBouncer } from '../lib/pgbouncer.js';
import { createPostgresStore, createSqliteStore } from '../../src/index.js';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import type { Finding } from './findings.js';
import { openPostgresLiveDb, openSqliteLiveDb, type SqliteSync } from './live-databases.js';
import { liveWorkload, postgresRawRows, sqliteRawRows, type LiveWorkload } from './live-workload.js';
import { upsertSubagentContext as sqliteUpsert } from '../../generated/sqlite/index.js';
import { fmtInt, fmtMs, fmtRatio, median, percentile } from './stats.js';

export interface PassResult {
  framesPerSecond: number;
  latenciesMs: number[];
}

export interface PathFigures {
  framesPerSecond: number;
  p50: number;
  p99: number;
}

export function summarize(passes: PassResult[]): PathFigures {
  const all = passes.flatMap((p) => p.latenciesMs);
  return { framesPerSecond: median(passes.map((p) => p.framesPerSecond)), p50: percentile(all, 50), p99: percentile(all, 99) };
}

/** Runs `count` workers over their share of the frames (whole sessions per worker) and times each call. */
export async function timedPass(w: LiveWorkload, workers: number, call: (index: number) => Promise<unknown> | unknown): Promise<PassResult> {
  const latenciesMs: number[] = new Array(w.frames.length);
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = 0; i < w.frames.length; i++) {
        if (w.sessionOf[i] % workers !== worker) continue;
        const t = process.hrtime.bigint();
        await call(i);
        latenciesMs[i] = Number(process.hrtime.bigint() - t) / 1e6;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { framesPerSecond: w.frames.length / seconds, latenciesMs };
}

function finding(dialect: Finding['dialect'], config: string, frames: number, store: PathFigures, raw: PathFigures, target: number): Finding {
  const ratio = store.framesPerSecond / raw.framesPerSecond;
  return {
    section: 'live writer',
    dialect,
    config,
    measured: `recordFrame ${fmtInt(store.framesPerSecond)} frames/s (p50 ${fmtMs(store.p50)}, p99 ${fmtMs(store.p99)})`,
    ceiling: `raw prepared upsert ${fmtInt(raw.framesPerSecond)} frames/s (p50 ${fmtMs(raw.p50)}, p99 ${fmtMs(raw.p99)})`,
    figure: ratio,
    figureText: fmtRatio(ratio),
    target: { kind: 'at-least', value: target, text: `≥ ${target}×` },
    detail: `${fmtInt(frames)} frames per run`,
  };
}

export async function sqliteLive(dir: string, sync: SqliteSync, frames: number, runs: number): Promise<Finding> {
  const w = liveWorkload(frames);
  const raw = sqliteRawRows(w);
  const live = await openSqliteLiveDb(dir, sync, w);
  try {
    const statement = live.db.prepare(sqliteUpsert.sql);
    const storePass = async () => {
      const store = createSqliteStore(live.db);
      const result = await timedPass(w, 1, (i) => store.recordFrame(w.frames[i]));
      if (store.counters().persisted !== frames)
        throw new Error(`recordFrame persisted ${store.counters().persisted} of ${frames} frames: ${JSON.stringify(store.counters())}`);
      return result;
    };
    const rawPass = () => timedPass(w, 1, (i) => statement.run(raw[i]));
    const passes = { store: [] as PassResult[], raw: [] as PassResult[] };
    for (let r = -1; r < runs; r++) {
      for (const path of r % 2 === 0 ? (['raw', 'store'] as const) : (['store', 'raw'] as const)) {
        live.clear();
        const result = path === 'store' ? await storePass() : await rawPass();
        if (r >= 0) passes[path].push(result); // r = -1 is the warm-up
      }
    }
    return finding('sqlite', `WAL, synchronous=${sync}, autocommit`, frames, summarize(passes.store), summarize(passes.raw), 0.8);
  } finally {
    live.close();
  }
}

/** A PostgreSQL run's route: straight to the server, or through PgBouncer in transaction mode. */
export type PostgresRoute = { kind: 'direct' } | { kind: 'pgbouncer'; bouncer: RunningPgBouncer; poolSize: number };

export async function postgresLive(
  server: RunningPostgres,
  connections: number,
  frames: number,
  runs: number,
  route: PostgresRoute = { kind: 'direct' },
): Promise<Finding> {
  const w = liveWorkload(frames);
  const raw = postgresRawRows(w);
  const live = await openPostgresLiveDb(server, w);
  const pooled = route.kind === 'pgbouncer';
  const pool = poolFor({ connectionString: pooled ? route.bouncer.route(live.url) : live.url, max: connections });
  let switched = 0;
  try {
    const storePass = async () => {
      const store = createPostgresStore(pool, { logger: { warn: () => {}, info: (fields) => void ((fields as { code?: unknown }).code && switched++) } });
      const result = await timedPass(w, connections, (i) => store.recordFrame(w.frames[i]));
      if (store.counters().persisted !== frames)
        throw new Error(`recordFrame persisted ${store.counters().persisted} of ${frames} frames: ${JSON.stringify(store.counters())}`);
      return result;
    };
    // Direct: the named statement, parsed once per connection. Through the pooler: unnamed,
    // the one raw form that works there (a named one fails with 42P05/26000).
    const rawPass = pooled
      ? () => timedPass(w, connections, (i) => pool.query({ text: raw[i].text, values: raw[i].values }))
      : () => timedPass(w, connections, (i) => pool.query({ name: 'bench_raw_upsert', text: raw[i].text, values: raw[i].values }));
    const passes = { store: [] as PassResult[], raw: [] as PassResult[] };
    for (let r = -1; r < runs; r++) {
      for (const path of r % 2 === 0 ? (['raw', 'store'] as const) : (['store', 'raw'] as const)) {
        await live.clear();
        const result = path === 'store' ? await storePass() : await rawPass();
        if (r >= 0) passes[path].push(result);
      }
    }
    const via = pooled ? `through PgBouncer ${route.bouncer.version.replace(/^PgBouncer\s*/i, '')} (transaction mode, pool ${route.poolSize}), ` : '';
    const config = `${via}${connections} connection${connections === 1 ? '' : 's'}, fsync on, autocommit`;
    const found = finding('postgres', config, frames, summarize(passes.store), summarize(passes.raw), 0.9);
    if (!pooled) return found;
    return {
      ...found,
      ceiling: found.ceiling.replace('raw prepared upsert', 'raw unnamed upsert'),
      detail: `${found.detail}; the store switched to unnamed statements in ${switched} of ${runs + 1} passes (the others never met a conflict)`,
    };
  } finally {
    await pool.end();
    await live.drop();
  }
}
