// The store worker's health section (./store-worker.ts): checkHealth() with capture_since at
// the 99th percentile of created_at (the last 1%) vs at the first message (a full window),
// alternating; the package's two anti-joins vs the spec's EXCEPT forms at the last 1%; the
// scaling row's fixed window; then the same store with the optional host index
// (store.ensureHostIndex(), docs/host-index.md): its build, both windows and the anti-joins
// against the peer again; then the index is dropped, so later sections see the store as installed.
import { formatKeyInstant, parseInstant } from '../../src/instant.js';
import type { SubagentContextStore } from '../../src/index.js';
import type { StoreManifest } from './lib/synthetic-store.js';
import type { PeerTimes } from './peer-statements.js';
import { FIXED_WINDOW_RUNS, fixedWindowFraction } from './report-measure.js';
import { timeMs } from './stats.js';
import type { Target } from './store-targets.js';

interface Windows {
  recentMs: number[];
  fullMs: number[];
  recentVerdict: string;
  fullVerdict: string;
}

export interface HealthMeasurement extends Windows {
  antiJoins: PeerTimes;
  fixedWindowMs: number[];
  /** The same store with the optional host index. */
  hostIndex: Windows & { buildMs: number; antiJoins: PeerTimes };
}

/** The short and the full window, alternating, after one untimed check of the short one. */
async function timeWindows(target: Target, store: SubagentContextStore, recent: string, start: string, runs: number): Promise<Windows> {
  const w: Windows = { recentMs: [], fullMs: [], recentVerdict: '', fullVerdict: '' };
  // The untimed check, as the scaling rows do: the pool's first connections and the catalog
  // caches of a fresh store are not the window's cost, and at a few milliseconds one such run
  // is a large share of a 3-run median.
  await target.setCaptureSince(recent);
  await store.checkHealth();
  for (let r = 0; r < Math.max(3, runs); r++) {
    for (const which of r % 2 === 0 ? (['recent', 'full'] as const) : (['full', 'recent'] as const)) {
      await target.setCaptureSince(which === 'recent' ? recent : start);
      let verdict = '';
      const ms = await timeMs(async () => (verdict = (await store.checkHealth()).verdict));
      w[which === 'recent' ? 'recentMs' : 'fullMs'].push(ms);
      w[which === 'recent' ? 'recentVerdict' : 'fullVerdict'] = verdict;
    }
  }
  return w;
}

/** The two anti-joins at `sinceNs`, the package's statement vs the spec's EXCEPT form, alternating. */
async function timeAntiJoins(target: Target, sinceNs: bigint, runs: number): Promise<PeerTimes> {
  const a: PeerTimes = { shortfall: { oursMs: [], peerMs: [], ours: 0, peer: 0 }, excess: { oursMs: [], peerMs: [], ours: 0, peer: 0 } };
  for (const name of ['shortfall', 'excess'] as const) {
    const t = a[name];
    for (let r = 0; r < runs; r++) {
      for (const which of r % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
        const ms = await timeMs(async () => (t[which] = which === 'ours' ? await target.ours(name, sinceNs) : await target.peer(name, sinceNs)));
        t[which === 'ours' ? 'oursMs' : 'peerMs'].push(ms);
      }
    }
  }
  return a;
}

export async function measureHealth(target: Target, manifest: StoreManifest, runs: number, peerRuns: number): Promise<HealthMeasurement> {
  const key = (text: string) => formatKeyInstant(parseInstant(text)!);
  const recent = key(await target.createdAtAt(0.99));
  const start = key(await target.createdAtAt(0));
  const sinceNs = parseInstant(recent)!;
  const store = target.store();
  const windows = await timeWindows(target, store, recent, start, runs);
  const antiJoins = await timeAntiJoins(target, sinceNs, peerRuns);
  // The scaling row's window: the same number of newest messages on every store.
  await target.setCaptureSince(key(await target.createdAtAt(fixedWindowFraction(manifest.profile.messages))));
  const fixedWindowMs: number[] = [];
  await store.checkHealth();
  for (let r = 0; r < FIXED_WINDOW_RUNS; r++) fixedWindowMs.push(await timeMs(() => store.checkHealth()));

  const buildMs = await timeMs(async () => {
    const built = await store.ensureHostIndex();
    if (built.outcome !== 'created') throw new Error(`ensureHostIndex() on a store without it said ${built.outcome}`);
  });
  const indexed = { ...(await timeWindows(target, store, recent, start, runs)), buildMs, antiJoins: await timeAntiJoins(target, sinceNs, peerRuns) };
  await target.dropHostIndex(); // the report section after this measures the store as installed
  return { ...windows, antiJoins, fixedWindowMs, hostIndex: indexed };
}
