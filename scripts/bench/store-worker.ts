// Child process: measures ONE cached synthetic store on one dialect, so its peak RSS is that
// store's alone. Prints one JSON line (StoreMeasurement) on stdout.
//   backfill: runMigrations() on the un-upgraded store, vs SELECT sum(length(metadata)) on the
//             same store (the physical floor of any one-pass backfill), alternating, warm cache;
//             and vs the Kandev-shaped peer statement (./peer-statements.ts) on the same store.
//             Its peak RSS is read right after the backfill runs, before any other section.
//   replay:   runMigrations() again on the activated store.
//   health:   checkHealth() at the last 1% vs a full window, the anti-joins vs the spec's
//             EXCEPT forms, then all again with the optional host index (./health-measure.ts).
//   report:   store.report() vs bare reads of the same rows (./report-measure.ts).
// Between backfill runs the store is reset to its generated state (the package's tables and
// any index it added are dropped).
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MIGRATION_STEP, type SubagentContextStore } from '../../src/index.js';
import { readPostgresManifest, type StoreManifest } from './lib/synthetic-store.js';
import { measureHealth, type HealthMeasurement } from './health-measure.js';
import { measureReport, type ReportMeasurement } from './report-measure.js';
import { timeMs } from './stats.js';
import { byDialect, DIALECTS, dialectNamed, type DialectName } from '../../src/dialect.js';
import { postgresTarget, sqliteTarget } from './store-targets.js';

export interface StoreMeasurement {
  profile: string;
  dialect: DialectName;
  messages: number;
  subagentMessages: number;
  backfill?: {
    runMs: number[];
    stepMs: number[];
    floorMs: number[];
    peerMs: number[];
    peerRows: number;
    ok: boolean;
    rows: number;
    failedSteps: string[];
    peakRssKb: number;
  };
  replay?: { ms: number[] };
  health?: HealthMeasurement;
  report?: ReportMeasurement;
  /** This process's peak resident set during the measurements (KiB). */
  peakRssKb: number;
  /** Its resident set when the measurements began (the runtime and loaded code), KiB. */
  baselineRssKb: number;
  /** PostgreSQL: the largest peak resident set among the store's server backends (KiB); shared buffers they touched count. */
  serverPeakRssKb?: number;
  /** PostgreSQL: the largest private memory (RssAnon) any of them reached during the backfill runs, sampled (KiB). */
  serverPeakAnonKb?: number;
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
  const dialect = dialectNamed(values.dialect);
  if (!dialect) throw new Error(`--dialect ${values.dialect}: not one of ${DIALECTS.join(', ')}`);
  const location = values.location!;
  const runs = Number(values.runs);
  // The peers are slow by design (a full JSON parse of every message): fewer runs of them.
  const peerRuns = Number(values['peer-runs'] ?? Math.min(runs, 3));
  const sections = new Set(values.sections!.split(','));
  const manifest = await byDialect(dialect, { sqlite: readSqliteManifestRw, postgres: readPostgresManifest })(location);
  if (!manifest) throw new Error(`${location} is not a generated benchmark store`);
  const target = await byDialect(dialect, { sqlite: sqliteTarget, postgres: postgresTarget })(location, manifest);
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
        stepMs: [] as number[],
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
      const serverMemory = await target.sampleServerMemory();
      for (let r = 0; r < runs; r++) {
        const measureFloor = async () => b.floorMs.push(await timeMs(() => target.floor()));
        if (r % 2 === 1) await measureFloor();
        await target.reset();
        const store = target.store();
        let report!: Awaited<ReturnType<SubagentContextStore['runMigrations']>>;
        b.runMs.push(await timeMs(async () => (report = await store.runMigrations())));
        // The backfill step alone (its INSERT, the high-water mark and the keys): the scaling
        // row's per-message time, without the schema steps' fixed cost.
        b.stepMs.push(report.steps.find((s) => s.name === MIGRATION_STEP.backfillSubagentContexts)?.ms ?? Number.NaN);
        b.ok &&= report.ok;
        b.failedSteps.push(...report.steps.filter((s) => s.status === 'failed').map((s) => `${s.name}: ${s.error ?? ''}`));
        b.rows = await target.count();
        if (r % 2 === 0) await measureFloor();
      }
      // The backfill's own peak, before the peer (whose memory is not the package's) and the
      // health and report sections (the report resets the high-water mark for its own).
      b.peakRssKb = peakRssKb();
      out.serverPeakAnonKb = (await serverMemory.stop()).peakAnonKb;
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
    if (sections.has('health')) out.health = await measureHealth(target, manifest, runs, peerRuns);
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
