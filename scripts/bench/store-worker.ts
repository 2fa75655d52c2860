// Child process: measures ONE cached synthetic store on one dialect, so its peak RSS is that
// store's alone. Prints one JSON line (StoreMeasurement) on stdout.
//   backfill: runMigrations() on the un-upgraded store, vs SELECT sum(length(metadata)) on the
//             same store (the physical floor of any one-pass backfill), alternating, warm cache;
//             and vs the Kandev-shaped peer statement (./peer-statements.ts) on the same store.
//             Its peak RSS is read right after the backfill runs, before any other section.
//   replay:   runMigrations() again on the activated store.
//   health:   checkHealth() with capture_since at the 99th percentile of created_at (the last 1%)
//             vs at the first message (a full window), same store, alternating; and the
//             package's two anti-joins vs the spec's EXCEPT forms, both at the last 1%.
//   report:   store.report() vs bare reads of the same rows (./report-measure.ts).
// Between backfill runs the store is reset to its generated state (the package's tables and
// any index it added are dropped).
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as postgresQueries from '../../generated/postgres/index.js';
import { packageSchema as postgresPackageSchema } from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { packageSchema as sqlitePackageSchema } from '../../generated/sqlite/index.js';
import { postgresWindow } from '../../src/postgres/health.js';
import { sqliteWindow } from '../../src/sqlite/health.js';
import { clientFor, poolFor } from '../lib/postgres-database.js';
import { ceilToMicros, formatKeyInstant, formatMicros, formatUtc9, parseInstant } from '../../src/instant.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore } from '../../src/index.js';
import { readPostgresManifest, resetPostgresStore, resetSqliteStore, type StoreManifest } from '../lib/synthetic-store.js';
import { fixedWindowFraction, measureReport, type ReportMeasurement, type ReportTarget } from './report-measure.js';
import { peerStatements, type PeerTimes } from './peer-statements.js';
import { msSince } from './stats.js';
import type { DialectName } from '../../src/dialect.js';

export interface StoreMeasurement {
  profile: string;
  dialect: DialectName;
  messages: number;
  subagentMessages: number;
  backfill?: { runMs: number[]; floorMs: number[]; peerMs: number[]; peerRows: number; ok: boolean; rows: number; failedSteps: string[]; peakRssKb: number };
  replay?: { ms: number[] };
  health?: { recentMs: number[]; fullMs: number[]; recentVerdict: string; fullVerdict: string; antiJoins: PeerTimes; fixedWindowMs: number[] };
  report?: ReportMeasurement;
  /** This process's peak resident set during the measurements (KiB). */
  peakRssKb: number;
  /** Its resident set when the measurements began (the runtime and loaded code), KiB. */
  baselineRssKb: number;
  /** PostgreSQL: the largest peak resident set among the store's server backends (KiB). */
  serverPeakRssKb?: number;
}

interface Target extends ReportTarget {
  floor(): Promise<void>;
  reset(): Promise<void>;
  store(): SubagentContextStore;
  count(): Promise<number>;
  /** created_at of the message at `fraction` of the store (0 = first), as stored text. */
  createdAtAt(fraction: number): Promise<string>;
  setCaptureSince(value: string): Promise<void>;
  serverPeakRssKb(): Promise<number | undefined>;
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

function sqliteTarget(file: string, manifest: StoreManifest): Target {
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

async function postgresTarget(url: string, manifest: StoreManifest): Promise<Target> {
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
      const pids = (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1', [adminPid])).rows.map(
        (r: { pid: number }) => r.pid,
      );
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

/**
 * Linux keeps a resettable high-water mark of the resident set: writing 5 to clear_refs
 * resets VmHWM to the current RSS, so the peak read at the end covers the measurements only,
 * not the TypeScript loader's start-up. Elsewhere, the whole process's maxRSS stands in.
 */
function procStatusKb(field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function resetPeakRss(): number {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not permitted: the peak then includes start-up
  }
  return procStatusKb('VmRSS') ?? process.memoryUsage.rss() / 1024;
}

const peakRssKb = () => procStatusKb('VmHWM') ?? process.resourceUsage().maxRSS;

async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return msSince(start);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dialect: { type: 'string' },
      location: { type: 'string' },
      runs: { type: 'string', default: '3' },
      sections: { type: 'string', default: 'backfill,replay,health,report' },
      'peer-runs': { type: 'string' },
    },
  });
  const dialect = values.dialect === 'postgres' ? 'postgres' : 'sqlite';
  const location = values.location!;
  const runs = Number(values.runs);
  // The peers are slow by design (a full JSON parse of every message): fewer runs of them.
  const peerRuns = Number(values['peer-runs'] ?? Math.min(runs, 3));
  const sections = new Set(values.sections!.split(','));
  const manifest = dialect === 'sqlite' ? readSqliteManifestRw(location) : await readPostgresManifest(location);
  if (!manifest) throw new Error(`${location} is not a generated benchmark store`);
  const target = dialect === 'sqlite' ? sqliteTarget(location, manifest) : await postgresTarget(location, manifest);
  const out: StoreMeasurement = {
    profile: manifest.profile.name,
    dialect,
    messages: manifest.profile.messages,
    subagentMessages: manifest.profile.subagentMessages,
    peakRssKb: 0,
    baselineRssKb: 0,
  };
  try {
    await target.reset();
    await target.floor(); // warm the cache once, for both paths alike
    out.baselineRssKb = resetPeakRss();
    if (sections.has('backfill')) {
      const b = {
        runMs: [] as number[],
        floorMs: [] as number[],
        peerMs: [] as number[],
        peerRows: 0,
        ok: true,
        rows: 0,
        failedSteps: [] as string[],
        peakRssKb: 0,
      };
      const measurePeer = async () => {
        await target.prepareEmptySchema();
        b.peerMs.push(await timeMs(async () => (b.peerRows = await target.peer('backfill'))));
      };
      for (let r = 0; r < runs; r++) {
        const measureFloor = async () => b.floorMs.push(await timeMs(() => target.floor()));
        if (r % 2 === 1) await measureFloor();
        await target.reset();
        const store = target.store();
        let report!: Awaited<ReturnType<SubagentContextStore['runMigrations']>>;
        b.runMs.push(await timeMs(async () => (report = await store.runMigrations())));
        b.ok &&= report.ok;
        b.failedSteps.push(...report.steps.filter((s) => s.status === 'failed').map((s) => `${s.name}: ${s.error ?? ''}`));
        b.rows = await target.count();
        if (r % 2 === 0) await measureFloor();
      }
      // The backfill's own peak, before the peer (whose memory is not the package's) and the
      // health and report sections (the report resets the high-water mark for its own).
      b.peakRssKb = peakRssKb();
      out.serverPeakRssKb = await target.serverPeakRssKb();
      for (let r = 0; r < peerRuns; r++) await measurePeer();
      out.backfill = b;
      await target.reset(); // the peer's rows out, the package's backfill in, for the sections below
      await target.store().runMigrations();
    } else {
      await target.reset();
      await target.store().runMigrations();
    }
    if (sections.has('replay')) {
      const store = target.store();
      const ms: number[] = [];
      for (let r = 0; r < Math.max(5, runs); r++) ms.push(await timeMs(() => store.runMigrations()));
      out.replay = { ms };
    }
    if (sections.has('health')) {
      const key = (text: string) => formatKeyInstant(parseInstant(text)!);
      const recent = key(await target.createdAtAt(0.99));
      const start = key(await target.createdAtAt(0));
      const h = { recentMs: [] as number[], fullMs: [] as number[], recentVerdict: '', fullVerdict: '' };
      const store = target.store();
      for (let r = 0; r < Math.max(3, runs); r++) {
        for (const which of r % 2 === 0 ? (['recent', 'full'] as const) : (['full', 'recent'] as const)) {
          await target.setCaptureSince(which === 'recent' ? recent : start);
          let verdict = '';
          const ms = await timeMs(async () => (verdict = (await store.checkHealth()).verdict));
          if (which === 'recent') {
            h.recentMs.push(ms);
            h.recentVerdict = verdict;
          } else {
            h.fullMs.push(ms);
            h.fullVerdict = verdict;
          }
        }
      }
      // The two anti-joins at the last 1%, the package's statement vs the spec's EXCEPT form, alternating.
      const sinceNs = parseInstant(recent)!;
      const a: PeerTimes = { shortfall: { oursMs: [], peerMs: [], ours: 0, peer: 0 }, excess: { oursMs: [], peerMs: [], ours: 0, peer: 0 } };
      for (const name of ['shortfall', 'excess'] as const) {
        const t = a[name];
        for (let r = 0; r < peerRuns; r++) {
          const one = async (which: 'ours' | 'peer') => {
            const ms = await timeMs(async () => (t[which] = which === 'ours' ? await target.ours(name, sinceNs) : await target.peer(name, sinceNs)));
            t[which === 'ours' ? 'oursMs' : 'peerMs'].push(ms);
          };
          for (const which of r % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) await one(which);
        }
      }
      // The scaling row's window: the same number of newest messages on every store.
      await target.setCaptureSince(key(await target.createdAtAt(fixedWindowFraction(manifest.profile.messages))));
      const fixedWindowMs: number[] = [];
      for (let r = 0; r < Math.max(3, runs); r++) fixedWindowMs.push(await timeMs(() => store.checkHealth()));
      out.health = { ...h, antiJoins: a, fixedWindowMs };
    }
    if (sections.has('report')) {
      out.report = await measureReport(target, target.store(), runs, { reset: () => void resetPeakRss(), peakKb: peakRssKb }, manifest.profile.messages);
    }
    out.serverPeakRssKb ??= await target.serverPeakRssKb();
    await target.reset(); // leave the cached store as generated
  } finally {
    await target.close();
  }
  out.peakRssKb = peakRssKb();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function readSqliteManifestRw(file: string): StoreManifest | null {
  const db = new Database(file, { fileMustExist: true });
  try {
    const row = db.prepare(`SELECT value FROM bench_store_manifest WHERE key = 'manifest'`).get() as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as StoreManifest) : null;
  } finally {
    db.close();
  }
}

main().catch((err) => {
  process.stderr.write(`store-worker: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
