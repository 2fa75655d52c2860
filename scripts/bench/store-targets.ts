// The two dialects' measuring targets for the store worker (./store-worker.ts): the same
// operations on a cached SQLite file or a PostgreSQL database — the floor read, reset, the
// package's store, the peers, the bare reads the report is compared with — so the worker's
// measurements are written once for both.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import * as postgresQueries from '../../generated/postgres/index.js';
import { packageSchema as postgresPackageSchema } from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { packageSchema as sqlitePackageSchema } from '../../generated/sqlite/index.js';
import { postgresWindow } from '../../src/postgres/health.js';
import { sqliteWindow } from '../../src/sqlite/health.js';
import { clientFor, poolFor } from '../lib/postgres-database.js';
import { ceilToMicros, formatMicros, formatUtc9 } from '../../src/instant.js';
import { HOST_INDEX_NAME } from '../../src/host-index/host-index.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore } from '../../src/index.js';
import { resetPostgresStore, resetSqliteStore, type StoreManifest } from './lib/synthetic-store.js';
import { sampleBackendMemory, type BackendMemory } from './backend-memory.js';
import { peerStatements } from './peer-statements.js';
import type { ReportTarget } from './report-measure.js';

export interface Target extends ReportTarget {
  floor(): Promise<void>;
  reset(): Promise<void>;
  store(): SubagentContextStore;
  count(): Promise<number>;
  /** created_at of the message at `fraction` of the store (0 = first), as stored text. */
  createdAtAt(fraction: number): Promise<string>;
  setCaptureSince(value: string): Promise<void>;
  serverPeakRssKb(): Promise<number | undefined>;
  /** PostgreSQL: samples the store's backends' private memory until stop() (./backend-memory.ts). */
  sampleServerMemory(): Promise<{ stop(): Promise<BackendMemory> }>;
  /** Drops the optional host index (store.ensureHostIndex()), so later sections measure the store without it. */
  dropHostIndex(): Promise<void>;
  /** Resets the store and creates the package's empty tables, as runMigrations would, untimed. */
  prepareEmptySchema(): Promise<void>;
  /** Runs one bench-only statement (scripts/bench/peer/<dialect>/<name>.sql); rows changed or the count it returns. */
  peer(name: 'backfill' | 'shortfall' | 'excess', sinceNs?: bigint): Promise<number>;
  /** The package's own anti-join statement, as checkHealth runs it. */
  ours(name: 'shortfall' | 'excess', sinceNs: bigint): Promise<number>;
  close(): Promise<void>;
}

const CAPTURE_SINCE = 'subagent_context_capture_since';
const noopLogger = { warn: () => {} };

export function sqliteTarget(file: string, manifest: StoreManifest): Target {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  const floor = db.prepare('SELECT sum(length(metadata)) AS bytes FROM task_session_messages');
  return {
    floor: async () => void floor.get(),
    reset: async () => resetSqliteStore(db, manifest),
    store: () => createSqliteStore(db, { logger: noopLogger }),
    count: async () => (db.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get() as { n: number }).n,
    bareSubagents: async () => db.prepare('SELECT * FROM task_session_subagents').all().length,
    bareMessages: async (since) => {
      let n = 0;
      const rows =
        since === null
          ? db.prepare('SELECT * FROM task_session_messages').iterate()
          : db.prepare('SELECT * FROM task_session_messages WHERE created_at >= ?').iterate(since);
      for (const _row of rows) n++;
      return n;
    },
    createdAtAt: async (fraction) =>
      (
        db
          .prepare('SELECT created_at FROM task_session_messages ORDER BY created_at LIMIT 1 OFFSET ?')
          .get(Math.floor(fraction * (manifest.profile.messages - 1))) as { created_at: string }
      ).created_at,
    setCaptureSince: async (value) => void db.prepare('UPDATE kandev_meta SET value = ? WHERE key = ?').run(value, CAPTURE_SINCE),
    serverPeakRssKb: async () => undefined,
    sampleServerMemory: async () => ({ stop: async () => ({ peakAnonKb: undefined, samples: 0 }) }),
    dropHostIndex: async () => void db.exec(`DROP INDEX IF EXISTS ${HOST_INDEX_NAME}`),
    prepareEmptySchema: async () => {
      resetSqliteStore(db, manifest);
      for (const script of sqlitePackageSchema) db.exec(script.sql);
    },
    peer: async (name, sinceNs) => {
      const stmt = db.prepare(peerStatements.sqlite[name]);
      if (name === 'backfill') return stmt.run().changes;
      return Number((stmt.get({ since: formatUtc9(sinceNs!) }) as { n: number }).n);
    },
    ours: async (name, sinceNs) => {
      const q = name === 'shortfall' ? sqliteQueries.countShortfallSinceCapture : sqliteQueries.countExcessSinceCapture;
      return Number(Object.values(q.get(sqliteWindow(sinceNs), db) ?? {})[0] ?? 0);
    },
    close: async () => void db.close(),
  };
}

export async function postgresTarget(url: string, manifest: StoreManifest): Promise<Target> {
  const pool = poolFor({ connectionString: url, max: 4 });
  const admin = clientFor(url);
  await admin.connect();
  // The backfill's INSERT … SELECT cannot use parallel workers, so the floor does not either.
  await admin.query('SET max_parallel_workers_per_gather = 0');
  const adminPid = (await admin.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
  return {
    floor: async () => void (await admin.query('SELECT sum(length(metadata)) AS bytes FROM task_session_messages')),
    reset: () => resetPostgresStore(admin, manifest),
    store: () => createPostgresStore(pool, { logger: noopLogger }),
    count: async () => Number((await admin.query('SELECT COUNT(*) AS n FROM task_session_subagents')).rows[0].n),
    bareSubagents: async () => (await admin.query('SELECT * FROM task_session_subagents')).rows.length,
    // A server-side cursor, so the bare read streams like SQLite's iterate().
    bareMessages: async (since) => {
      let n = 0;
      await admin.query('BEGIN');
      try {
        const where = since === null ? '' : ` WHERE created_at >= '${since.replace(/'/g, "''")}'::timestamp`;
        await admin.query(`DECLARE bare CURSOR FOR SELECT * FROM task_session_messages${where}`);
        for (;;) {
          const batch = (await admin.query('FETCH 10000 FROM bare')).rows.length;
          n += batch;
          if (batch === 0) break;
        }
      } finally {
        await admin.query('COMMIT');
      }
      return n;
    },
    createdAtAt: async (fraction) =>
      (
        await admin.query('SELECT created_at::text AS at FROM task_session_messages ORDER BY created_at LIMIT 1 OFFSET $1', [
          Math.floor(fraction * (manifest.profile.messages - 1)),
        ])
      ).rows[0].at as string,
    setCaptureSince: async (value) => void (await admin.query('UPDATE kandev_meta SET value = $1 WHERE key = $2', [value, CAPTURE_SINCE])),
    serverPeakRssKb: async () => {
      // Client backends only, as in ./backend-memory.ts (an autovacuum worker is not the package's).
      const pids = (
        await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 AND backend_type = 'client backend'", [adminPid])
      ).rows.map((r: { pid: number }) => r.pid);
      const peaks = pids.flatMap((pid) => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
          return m ? [Number(m[1])] : [];
        } catch {
          return [];
        }
      });
      return peaks.length ? Math.max(...peaks) : undefined;
    },
    sampleServerMemory: async () => {
      const client = clientFor(url);
      await client.connect();
      const sampler = await sampleBackendMemory(client);
      return {
        stop: async () => {
          const result = await sampler.stop();
          await client.end();
          return result;
        },
      };
    },
    dropHostIndex: async () => void (await admin.query(`DROP INDEX IF EXISTS ${HOST_INDEX_NAME}`)),
    prepareEmptySchema: async () => {
      await resetPostgresStore(admin, manifest);
      for (const script of postgresPackageSchema) await admin.query(script.sql);
    },
    peer: async (name, sinceNs) => {
      const sql = peerStatements.postgres[name];
      if (name === 'backfill') return (await admin.query(sql)).rowCount ?? 0;
      return Number((await admin.query(sql, [formatMicros(ceilToMicros(sinceNs!))])).rows[0].n);
    },
    ours: async (name, sinceNs) => {
      const q = name === 'shortfall' ? postgresQueries.countShortfallSinceCapture : postgresQueries.countExcessSinceCapture;
      const rows = (await q.run(postgresWindow(sinceNs), admin)) as unknown as Record<string, unknown>[];
      return Number(Object.values(rows[0] ?? {})[0] ?? 0);
    },
    close: async () => {
      await pool.end();
      await admin.end();
    },
  };
}
