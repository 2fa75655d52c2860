// Backfill, replay, health and report on the synthetic stores: generates (or reuses) each cached
// store, measures it in its own child process (store-worker.ts) so peak RSS is per store, and
// turns the measurements into findings.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import { ensurePostgresStore, ensureSqliteStore, STORE_PROFILES, type StoreProfileName } from '../lib/synthetic-store.js';
import type { Finding } from './findings.js';
import { fmtInt, fmtMs, fmtRatio, median } from './stats.js';
import type { StoreMeasurement } from './store-worker.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Backfill targets per store shape (issue 6): wall time over the floor's. */
const BACKFILL_TARGET: Record<string, number> = { reference: 1.0, sparse: 1.5, dense: 3.0 };
const shape = (profile: string) => profile.split('-')[0];
const runsText = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
const mb = (kb: number | undefined) => (kb === undefined ? 'n/a' : `${fmtInt(kb / 1024)} MB`);

function runWorker(args: string[]): Promise<StoreMeasurement> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'store-worker.ts'), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: resolve(here, '..', '..'),
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`store worker exited with ${code}: ${out}`));
      resolvePromise(JSON.parse(line) as StoreMeasurement);
    });
  });
}

/** report() vs the bare reads it replaces (issue 13: ≤ 3×). */
function reportFindings(dialect: 'sqlite' | 'postgres', storeText: string, r: NonNullable<StoreMeasurement['report']>): Finding[] {
  const make = (label: string, reportMs: number[], subagentsMs: number[], messagesMs: number[], messages: number): Finding => {
    const run = median(reportMs);
    const sub = median(subagentsMs);
    const bare = sub + median(messagesMs);
    return {
      section: 'report',
      dialect,
      config: storeText,
      measured: `report(), ${label}: ${fmtMs(run)} (${fmtInt(r.rows)} rows)`,
      ceiling: `bare read of every task_session_subagents row + the window's ${fmtInt(messages)} messages: ${fmtMs(bare)}`,
      figure: run / bare,
      figureText: fmtRatio(run / bare),
      target: { kind: 'at-most', value: 3, text: '≤ 3×' },
      detail: `vs the subagent rows' bare read alone (${fmtMs(sub)}): ${fmtRatio(run / sub)}; report() peak RSS ${mb(r.peakRssKb)}, heap ${mb(r.heapUsedKb)}; ${runsText(reportMs.length)}`,
    };
  };
  return [
    make('since in the last 1%', r.recentMs, r.recentSubagentsMs, r.recentMessagesMs, r.recentMessages),
    make('all history', r.fullMs, r.fullSubagentsMs, r.fullMessagesMs, r.fullMessages),
  ];
}

export interface StoreSectionOptions {
  cacheDir: string;
  profiles: StoreProfileName[];
  dialects: ('sqlite' | 'postgres')[];
  server?: RunningPostgres;
  runs: number;
  sections: Set<string>;
}

/** Generates every selected store up front (cached), so generation never overlaps a measurement. */
export async function prepareStores(o: StoreSectionOptions): Promise<Map<string, string>> {
  const locations = new Map<string, string>();
  for (const dialect of o.dialects) {
    for (const name of o.profiles) {
      const p = STORE_PROFILES[name];
      const location = dialect === 'sqlite' ? await ensureSqliteStore(o.cacheDir, p) : await ensurePostgresStore(o.server!.url, o.server!.urlFor, p);
      locations.set(`${dialect}:${name}`, location);
    }
  }
  return locations;
}

export async function storeSections(o: StoreSectionOptions): Promise<Finding[]> {
  const locations = await prepareStores(o);
  const wanted = ['backfill', 'replay', 'health', 'report'].filter((s) => o.sections.has(s));
  const findings: Finding[] = [];
  for (const dialect of o.dialects) {
    const rss: { profile: string; kb: number; serverKb?: number }[] = [];
    const reportRss: { profile: string; kb: number; messages: number }[] = [];
    for (const name of o.profiles) {
      const isMillion = shape(name) !== 'reference';
      const sections = wanted.filter((s) => s !== 'health' || isMillion);
      if (sections.length === 0) continue;
      process.stderr.write(`bench: ${dialect} ${name}: ${sections.join(', ')} …\n`);
      const m = await runWorker([
        '--dialect',
        dialect,
        '--location',
        locations.get(`${dialect}:${name}`)!,
        '--runs',
        String(o.runs),
        '--sections',
        sections.join(','),
      ]);
      const storeText = `${name} (${fmtInt(m.messages)} messages, ${fmtInt(m.subagentMessages)} subagent)`;
      if (m.backfill) {
        const run = median(m.backfill.runMs);
        const floor = median(m.backfill.floorMs);
        const target = BACKFILL_TARGET[shape(name)];
        rss.push({ profile: name, kb: m.peakRssKb, serverKb: m.serverPeakRssKb });
        findings.push({
          section: 'backfill',
          dialect,
          config: storeText,
          measured: `runMigrations() ${fmtMs(run)}, ${fmtInt(m.backfill.rows)} rows${m.backfill.ok ? '' : ` — NOT ok: ${m.backfill.failedSteps.join('; ')}`}`,
          ceiling: `SELECT sum(length(metadata)) ${fmtMs(floor)}`,
          figure: m.backfill.ok && m.backfill.rows === m.subagentMessages ? run / floor : Number.NaN,
          figureText: fmtRatio(run / floor),
          target: { kind: 'at-most', value: target, text: `≤ ${target.toFixed(1)}×` },
          detail: `peak RSS ${mb(m.peakRssKb)} (${mb(m.baselineRssKb)} before the first run)${m.serverPeakRssKb ? `, server backend ${mb(m.serverPeakRssKb)}` : ''}; ${runsText(m.backfill.runMs.length)}`,
        });
      }
      if (m.replay) {
        const ms = median(m.replay.ms);
        findings.push({
          section: 'replay',
          dialect,
          config: storeText,
          measured: `runMigrations() on the activated store ${fmtMs(ms)}`,
          ceiling: '—',
          figure: ms,
          figureText: fmtMs(ms),
          target: { kind: 'at-most', value: 20, text: '< 20 ms' },
          detail: runsText(m.replay.ms.length),
        });
      }
      if (m.report) {
        findings.push(...reportFindings(dialect, storeText, m.report));
        reportRss.push({ profile: name, kb: m.report.peakRssKb, messages: m.messages });
      }
      if (m.health) {
        const recent = median(m.health.recentMs);
        const full = median(m.health.fullMs);
        findings.push({
          section: 'health',
          dialect,
          config: storeText,
          measured: `checkHealth(), since in the last 1%: ${fmtMs(recent)} (${m.health.recentVerdict})`,
          ceiling: `since at the first message: ${fmtMs(full)} (${m.health.fullVerdict})`,
          figure: recent / full,
          figureText: `${((recent / full) * 100).toFixed(1)}%`,
          target: { kind: 'at-most', value: 0.02, text: '≤ 2%' },
          detail: `${runsText(m.health.recentMs.length)} each`,
        });
      }
    }
    if (reportRss.length > 1) {
      const kbs = reportRss.map((r) => r.kb);
      const growth = Math.max(...kbs) / Math.min(...kbs);
      findings.push({
        section: 'report',
        dialect,
        config: 'report() peak RSS as the store grows',
        measured: reportRss.map((r) => `${r.profile} ${mb(r.kb)}`).join(' · '),
        ceiling: 'smallest store',
        figure: growth,
        figureText: fmtRatio(growth),
        target: { kind: 'at-most', value: 1.5, text: 'flat (≤ 1.5×)' },
        detail: 'the measuring process over report() calls alone (Linux VmHWM reset before them)',
      });
    }
    if (rss.length > 1) {
      const kbs = rss.map((r) => r.kb);
      const growth = Math.max(...kbs) / Math.min(...kbs);
      findings.push({
        section: 'backfill',
        dialect,
        config: 'peak RSS as the store grows',
        measured: rss.map((r) => `${r.profile} ${mb(r.kb)}${r.serverKb ? ` (server ${mb(r.serverKb)})` : ''}`).join(' · '),
        ceiling: 'smallest store',
        figure: growth,
        figureText: fmtRatio(growth),
        target: { kind: 'at-most', value: 1.5, text: 'flat (≤ 1.5×)' },
      });
    }
  }
  return findings;
}
