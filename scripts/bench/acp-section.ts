// ACP intake (issue 18): recorder.sessionUpdate on ACP traffic recorded from real agents
// (recordings/acp/*.jsonl, replicated into many ACP sessions) against store.recordFrame of
// the very frames the recorder writes, same store configuration, same run, alternating which
// path goes first, each pass on input parsed fresh (target ≥ 0.95×: recognition must cost next
// to nothing beside the write). And
// the recognizer's memory over 1M tool calls: sessions of 100 unsettled Agent calls, each
// forgotten at its end, heap after GC at checkpoints (target: flat, ≤ 1 MB of growth from 10k
// to 1M calls); the same without forget shows the cap (maxCalls) holding instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createAcpRecorder, createSubagentRecognizer, type AcpHostContext } from '../../src/acp/index.js';
import { createPostgresStore, createSqliteStore } from '../../src/index.js';
import type { SubagentContextStore, SubagentFrame } from '../../src/types.js';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import { poolFor } from '../lib/postgres-database.js';
import type { Finding } from './findings.js';
import { openPostgresLiveDb, openSqliteLiveDb } from './live-databases.js';
import type { LiveWorkload } from './live-workload.js';
import { fmtInt, fmtRatio, median } from './stats.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'recordings', 'acp');
const FIXTURE_NAMES = [
  'claude-fanout',
  'claude-subagents-capability',
  'opencode-fanout',
  'gemini-fanout',
  'gemini-refused',
  'qwen-fanout',
  'codex-fanout',
  'codex-subagents-capability',
  'codex-multi-agent-v2',
];
const EXECUTION = '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11';

type Update = { sessionId: string; update: object };

interface AcpWorkload {
  updates: Update[];
  /** The frames the recorder writes for `updates`, in order (the ceiling's input). */
  frames: SubagentFrame[];
  context(acpSessionId: string): AcpHostContext | undefined;
  /** Host sessions, for the database setup. */
  live: LiveWorkload;
}

/** `copies` × each fixture, every ACP and child session id made unique per copy, one host session each. */
function acpWorkload(copies: number): AcpWorkload {
  const fixtures = FIXTURE_NAMES.map((name) => ({
    lines: readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8')
      .trim()
      .split('\n'),
    root: (JSON.parse(readFileSync(join(FIXTURES, `${name}.meta.json`), 'utf8')) as { acpSessionId: string }).acpSessionId,
  }));
  const updates: Update[] = [];
  const hosts = new Map<string, AcpHostContext>();
  for (let k = 0; k < copies; k++) {
    for (const [f, fixture] of fixtures.entries()) {
      const suffix = `-c${k}f${f}`;
      // Session ids (root, Claude's child sessions `a` + 16 hex, Codex's thread ids: UUIDs) get the copy's suffix.
      const rename = (line: string) =>
        line
          .split(fixture.root)
          .join(fixture.root + suffix)
          .replace(/"(a[0-9a-f]{16}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/g, `"$1${suffix}"`);
      for (const line of fixture.lines) updates.push(JSON.parse(rename(line)) as Update);
      hosts.set(fixture.root + suffix, { sessionId: `bench-ses${suffix}`, taskId: `bench-card${suffix}`, executionId: EXECUTION, turnId: 'turn-1' });
    }
  }
  const context = (id: string) => hosts.get(id);
  const recognizer = createSubagentRecognizer();
  const frames: SubagentFrame[] = [];
  for (const u of updates) {
    const r = recognizer.observe(u);
    const host = r && context(r.acpSessionId);
    if (r && host) {
      // As the recorder writes it, usage included (Qwen Code's ledger rows), so both paths write the same rows.
      const frame: SubagentFrame = { ...host, toolCallId: r.toolCallId, parentToolCallId: r.parentToolCallId, toolStatus: r.toolStatus, payload: r.payload };
      if (r.usage !== undefined) frame.usage = r.usage;
      frames.push(frame);
    }
  }
  // Copies must not meet in the recognizer (a shared child id would join two copies' rows): each copy writes what one fixture alone writes.
  const alone = fixtures.reduce((n, f) => n + framesOf(f.lines.map((line) => JSON.parse(line) as Update)), 0);
  if (frames.length !== alone * copies) throw new Error(`${frames.length} frames from ${copies} copies, expected ${alone * copies}: copies share an id`);
  const sessions = [...hosts.values()].map((h) => ({ id: h.sessionId, taskId: h.taskId }));
  return { updates, frames, context, live: { sessions, frames: [], sessionOf: [] } };
}

/** The frames one fixture's updates give on a fresh recognizer. */
function framesOf(updates: Update[]): number {
  const recognizer = createSubagentRecognizer();
  return updates.filter((u) => recognizer.observe(u) !== undefined).length;
}

async function timeIt(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** At least this many pairs: a pass is about a second, and this machine's passes scatter by ±15%. */
const MIN_PAIRS = 9;

interface Throughput {
  /** frames/s, medians of each path's passes. */
  recorder: number;
  store: number;
  /** Median of each pair's ratio (a recorder pass over the store pass beside it). */
  ratio: number;
  pairs: number;
}

/**
 * Alternating pairs of passes of both paths on a cleared table. Each pass gets its input fresh
 * from JSON text, untimed, as a host gets it from the wire: objects and strings no earlier pass
 * has touched (a reused object's strings are already hashed, which made the recognizer look
 * about 40% cheaper than on a fresh notification). The figure is the median of the pairs'
 * ratios, so the machine's drift over the section cancels out of each pair.
 */
async function measure(w: AcpWorkload, runs: number, makeStore: () => SubagentContextStore, clear: () => unknown): Promise<Throughput> {
  const seconds = { recorder: [] as number[], store: [] as number[] };
  const updatesJson = JSON.stringify(w.updates);
  const framesJson = JSON.stringify(w.frames);
  const recorderPass = async () => {
    const updates = JSON.parse(updatesJson) as Update[];
    const store = makeStore();
    const recorder = createAcpRecorder(store, { context: w.context });
    const s = await timeIt(async () => {
      for (const u of updates) await recorder.sessionUpdate(u);
    });
    if (store.counters().persisted !== w.frames.length)
      throw new Error(`recorder persisted ${store.counters().persisted} of ${w.frames.length}: ${JSON.stringify(store.counters())}`);
    return s;
  };
  const storePass = async () => {
    const frames = JSON.parse(framesJson) as SubagentFrame[];
    const store = makeStore();
    const s = await timeIt(async () => {
      for (const f of frames) await store.recordFrame(f);
    });
    if (store.counters().persisted !== w.frames.length) throw new Error(`recordFrame persisted ${store.counters().persisted} of ${w.frames.length}`);
    return s;
  };
  const pairs = Math.max(runs, MIN_PAIRS);
  for (let r = -1; r < pairs; r++) {
    for (const path of r % 2 === 0 ? (['store', 'recorder'] as const) : (['recorder', 'store'] as const)) {
      await clear();
      const s = path === 'recorder' ? await recorderPass() : await storePass();
      if (r >= 0) seconds[path].push(s); // r = -1 is the warm-up
    }
  }
  // frames/s of a pair's recorder pass over its store pass = store seconds / recorder seconds.
  const ratio = median(seconds.store.map((s, i) => s / seconds.recorder[i]));
  return { recorder: w.frames.length / median(seconds.recorder), store: w.frames.length / median(seconds.store), ratio, pairs };
}

function throughputFinding(dialect: Finding['dialect'], config: string, w: AcpWorkload, fps: Throughput): Finding {
  return {
    section: 'acp intake',
    dialect,
    config,
    measured: `recorder.sessionUpdate ${fmtInt(fps.recorder)} frames/s (${fmtInt(w.updates.length)} updates in)`,
    ceiling: `store.recordFrame of the same ${fmtInt(w.frames.length)} frames ${fmtInt(fps.store)} frames/s`,
    figure: fps.ratio,
    figureText: fmtRatio(fps.ratio),
    target: { kind: 'at-least', value: 0.95, text: '≥ 0.95×' },
    detail: `recorded real-agent traffic (${FIXTURE_NAMES.join(', ')}) ×${fmtInt(w.live.sessions.length / FIXTURE_NAMES.length)}, each pass's input parsed fresh from JSON (untimed); median of ${fps.pairs} pairs' ratios (frames/s: medians of the ${fps.pairs} passes of each path)`,
  };
}

export async function sqliteAcp(dir: string, copies: number, runs: number): Promise<Finding> {
  const w = acpWorkload(copies);
  const live = await openSqliteLiveDb(dir, 'NORMAL', w.live);
  try {
    const fps = await measure(
      w,
      runs,
      () => createSqliteStore(live.db),
      () => live.clear(),
    );
    return throughputFinding('sqlite', 'WAL, synchronous=NORMAL, autocommit', w, fps);
  } finally {
    live.close();
  }
}

export async function postgresAcp(server: RunningPostgres, copies: number, runs: number): Promise<Finding> {
  const w = acpWorkload(copies);
  const live = await openPostgresLiveDb(server, w.live);
  const pool = poolFor({ connectionString: live.url, max: 1 });
  try {
    const fps = await measure(
      w,
      runs,
      () => createPostgresStore(pool),
      () => live.clear(),
    );
    return throughputFinding('postgres', '1 connection, fsync on, autocommit', w, fps);
  } finally {
    await pool.end();
    await live.drop();
  }
}

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Heap (MB, after GC) at checkpoints while `calls` Claude Agent calls stream through one recognizer. */
function heapOver(calls: number, perSession: number, forget: boolean): { checkpoints: [number, number][]; size: number } {
  const gc = collector();
  const r = createSubagentRecognizer();
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed / 2 ** 20;
  };
  const marks = new Set([calls / 100, calls / 10, calls / 2, calls]);
  const checkpoints: [number, number][] = [];
  const meta = { claudeCode: { toolName: 'Agent' } };
  for (let i = 1; i <= calls; i++) {
    const session = `acp-${Math.floor((i - 1) / perSession)}`;
    const toolCallId = `toolu_${i}`;
    r.observe({ sessionId: session, update: { sessionUpdate: 'tool_call', toolCallId, title: 'Task', status: 'pending', rawInput: {}, _meta: meta } });
    r.observe({
      sessionId: session,
      update: {
        sessionUpdate: 'tool_call_update',
        toolCallId,
        rawInput: { description: `Review part ${i}`, prompt: `Review part ${i} of the change for defects.`, subagent_type: 'general-purpose' },
        _meta: meta,
      },
    });
    // Never settled: state stays until forget (or the cap).
    if (forget && i % perSession === 0) r.forget(session);
    if (marks.has(i)) checkpoints.push([i, heap()]);
  }
  return { checkpoints, size: r.size() };
}

export function recognizerMemory(calls: number): Finding {
  const withForget = heapOver(calls, 100, true);
  const without = heapOver(calls, 100, false);
  const at = (c: [number, number][], i: number) => c[i][1];
  const growth = at(withForget.checkpoints, withForget.checkpoints.length - 1) - at(withForget.checkpoints, 0);
  const show = (c: [number, number][]) => c.map(([n, mb]) => `${fmtInt(n)}: ${mb.toFixed(1)} MB`).join(' · ');
  return {
    section: 'acp intake',
    dialect: 'sqlite',
    config: `recognizer alone (no database): heap after GC over ${fmtInt(calls)} unsettled tool calls, sessions of 100, forget at session end`,
    measured: show(withForget.checkpoints),
    ceiling: `the heap at ${fmtInt(withForget.checkpoints[0][0])} calls`,
    figure: growth,
    figureText: `${growth >= 0 ? '+' : ''}${growth.toFixed(2)} MB`,
    target: { kind: 'at-most', value: 1, text: '≤ +1 MB (flat)' },
    detail: `recognizer state at the end: ${withForget.size} entries with forget; without forget (a host that never ends sessions) the cap holds it at ${fmtInt(without.size)} entries: ${show(without.checkpoints)}`,
  };
}
