// Batch writes: store.recordFrames() in bursts of 100 and 1,000 frames (one transaction each,
// every frame's outcome independent) against store.recordFrame() autocommit on the same
// frames, in the same runs. Target: the 1,000-frame burst >= 3x autocommit on both dialects.
// The raw ceiling for a burst — the generated upsert's SQL in one transaction on the bare
// driver — is reported alongside, for scale.
import { poolFor } from '../lib/postgres-database.js';
import { upsertSubagentContext as sqliteUpsert } from '../../generated/sqlite/index.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore } from '../../src/index.js';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import type { Finding } from './findings.js';
import { openPostgresLiveDb, openSqliteLiveDb, type SqliteSync } from './live-databases.js';
import { timedPass, type PassResult } from './live-writer-section.js';
import { liveWorkload, postgresRawRows, sqliteRawRows, type LiveWorkload } from './live-workload.js';
import { fmtInt, fmtRatio, median } from './stats.js';

const BURSTS = [100, 1_000] as const;

/** Times recordFrames over consecutive bursts; frames/s over the whole pass. */
async function burstPass(store: SubagentContextStore, w: LiveWorkload, size: number): Promise<PassResult> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < w.frames.length; i += size) {
    const outcomes = await store.recordFrames(w.frames.slice(i, i + size));
    const bad = outcomes.filter((o) => o !== 'persisted').length;
    if (bad) throw new Error(`recordFrames: ${bad} of ${outcomes.length} frames not persisted`);
  }
  return { framesPerSecond: w.frames.length / (Number(process.hrtime.bigint() - start) / 1e9), latenciesMs: [] };
}

interface Paths {
  autocommit(): Promise<PassResult>;
  burst(size: number): Promise<PassResult>;
  rawBurst(size: number): Promise<PassResult>;
  clear(): Promise<void>;
}

async function measure(paths: Paths, runs: number): Promise<Map<string, number>> {
  const names = ['autocommit', ...BURSTS.map((b) => `burst-${b}`), `raw-burst-${BURSTS.at(-1)}`];
  const results = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let r = -1; r < runs; r++) {
    const order = r % 2 === 0 ? [...names].reverse() : names;
    for (const name of order) {
      await paths.clear();
      const pass =
        name === 'autocommit'
          ? await paths.autocommit()
          : name.startsWith('raw-')
            ? await paths.rawBurst(Number(name.split('-').at(-1)))
            : await paths.burst(Number(name.split('-').at(-1)));
      if (r >= 0) results.get(name)!.push(pass.framesPerSecond);
    }
  }
  return new Map([...results].map(([k, v]) => [k, median(v)]));
}

function findings(dialect: Finding['dialect'], config: string, frames: number, fps: Map<string, number>): Finding[] {
  const auto = fps.get('autocommit')!;
  const largest = BURSTS.at(-1)!;
  return BURSTS.map((size) => {
    const burst = fps.get(`burst-${size}`)!;
    const ratio = burst / auto;
    const isTarget = size === largest;
    return {
      section: 'batch' as const,
      dialect,
      config: `${config}, ${fmtInt(size)} frames per recordFrames call`,
      measured: `recordFrames ${fmtInt(burst)} frames/s`,
      ceiling: `recordFrame autocommit ${fmtInt(auto)} frames/s${isTarget ? `; raw upsert in ${fmtInt(size)}-row transactions ${fmtInt(fps.get(`raw-burst-${size}`)!)} frames/s (${fmtRatio(burst / fps.get(`raw-burst-${size}`)!)} of it)` : ''}`,
      figure: ratio,
      figureText: fmtRatio(ratio),
      target: isTarget ? { kind: 'at-least' as const, value: 3, text: '≥ 3× autocommit' } : null,
      detail: `${fmtInt(frames)} frames per run`,
    };
  });
}

export async function sqliteBatch(dir: string, sync: SqliteSync, frames: number, runs: number): Promise<Finding[]> {
  const w = liveWorkload(frames, 7);
  const raw = sqliteRawRows(w);
  const live = await openSqliteLiveDb(dir, sync, w);
  try {
    const statement = live.db.prepare(sqliteUpsert.sql);
    const fps = await measure(
      {
        autocommit: async () => {
          const store = createSqliteStore(live.db);
          return timedPass(w, 1, (i) => store.recordFrame(w.frames[i]));
        },
        burst: (size) => burstPass(createSqliteStore(live.db), w, size),
        rawBurst: async (size) => {
          const write = live.db.transaction((from: number) => {
            for (let i = from; i < Math.min(from + size, raw.length); i++) statement.run(raw[i]);
          });
          const start = process.hrtime.bigint();
          for (let i = 0; i < raw.length; i += size) write.immediate(i);
          return { framesPerSecond: raw.length / (Number(process.hrtime.bigint() - start) / 1e9), latenciesMs: [] };
        },
        clear: async () => live.clear(),
      },
      runs,
    );
    return findings('sqlite', `WAL, synchronous=${sync}`, frames, fps);
  } finally {
    live.close();
  }
}

export async function postgresBatch(server: RunningPostgres, frames: number, runs: number): Promise<Finding[]> {
  const w = liveWorkload(frames, 7);
  const raw = postgresRawRows(w);
  const live = await openPostgresLiveDb(server, w);
  const pool = poolFor({ connectionString: live.url, max: 1 });
  try {
    const fps = await measure(
      {
        autocommit: async () => {
          const store = createPostgresStore(pool);
          return timedPass(w, 1, (i) => store.recordFrame(w.frames[i]));
        },
        burst: (size) => burstPass(createPostgresStore(pool), w, size),
        rawBurst: async (size) => {
          const client = await pool.connect();
          try {
            const start = process.hrtime.bigint();
            for (let i = 0; i < raw.length; i += size) {
              await client.query('BEGIN');
              for (let j = i; j < Math.min(i + size, raw.length); j++)
                await client.query({ name: 'bench_raw_upsert', text: raw[j].text, values: raw[j].values });
              await client.query('COMMIT');
            }
            return { framesPerSecond: raw.length / (Number(process.hrtime.bigint() - start) / 1e9), latenciesMs: [] };
          } finally {
            client.release();
          }
        },
        clear: () => live.clear(),
      },
      runs,
    );
    return findings('postgres', '1 connection, fsync on', frames, fps);
  } finally {
    await pool.end();
    await live.drop();
  }
}
