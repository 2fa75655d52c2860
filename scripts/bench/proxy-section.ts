// `subagent-context proxy` (issue 21): what standing between an editor and its agent costs.
// Latency (proxy-latency.ts): every message timed one way, client → agent and agent → client,
// through the proxy and on a direct pipe in the same run; the figure is the p99 the proxy adds
// to one message (target < 1 ms), a round trip (two messages) reported beside it. Burst: the
// agent is `cat` (it echoes every byte at once), N messages written at once, time until the
// last echo, proxied against direct (and what the writer dropped, from the proxy's stderr).
// Each message is a session/update of a subagent tool call with a fresh toolCallId, so the tap
// matches it and the writer really writes a row per message — the worst case.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import { createDatabase } from '../lib/postgres-database.js';
import type { Finding } from './findings.js';
import { added, measureLatency, StampedPath, STAMP_AGENT, type LatencyRun } from './proxy-latency.js';
import { fmtInt, fmtRatio, median } from './stats.js';
import { byDialect, type DialectName } from '../../src/dialect.js';

const CLI = resolve(import.meta.dirname, '..', '..', 'dist', 'src', 'cli.js');

function message(i: number): Buffer {
  const update = {
    sessionUpdate: 'tool_call',
    toolCallId: `toolu_bench_${i}`,
    title: 'Task',
    kind: 'think',
    status: 'pending',
    rawInput: { description: `Review part ${i}`, prompt: `Review part ${i} of the change for defects.`, subagent_type: 'general-purpose' },
    _meta: { claudeCode: { toolName: 'Agent' } },
  };
  return Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench-session', update } })}\n`);
}

/** A running echo path: write lines, await their echoes. */
class EchoPath {
  readonly child: ChildProcessWithoutNullStreams;
  private waiters: { count: number; resolve: () => void }[] = [];
  private seen = 0;
  /** Lines written so far. */
  sent = 0;
  stderr = '';

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.seen++;
      while (this.waiters.length && this.waiters[0].count <= this.seen) this.waiters.shift()!.resolve();
    });
  }

  /** Resolves when `count` lines in total have come back. */
  until(count: number): Promise<void> {
    if (this.seen >= count) return Promise.resolve();
    return new Promise((r) => this.waiters.push({ count, resolve: r }));
  }

  async close(): Promise<void> {
    const done = new Promise((r) => this.child.once('close', r));
    this.child.stdin.end();
    await done;
  }
}

async function burst(path: EchoPath, count: number, firstId: number): Promise<number> {
  const lines = Buffer.concat(Array.from({ length: count }, (_, i) => message(firstId + i)));
  path.sent += count;
  const start = process.hrtime.bigint();
  path.child.stdin.write(lines);
  await path.until(path.sent);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function countRows(storeArgs: string[], db: Awaited<ReturnType<typeof createDatabase>> | null): Promise<number> {
  if (db) {
    const pool = db.pool({ max: 1 });
    return Number((await pool.query('SELECT COUNT(*) AS n FROM task_session_subagents')).rows[0].n);
  }
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(storeArgs[1], { readonly: true });
  try {
    return (sqlite.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

export interface ProxyBenchOptions {
  dialect: DialectName;
  server?: RunningPostgres;
  dir: string;
  /** Messages timed per path (after the warm-up). */
  messages: number;
  /** Messages per path before the timed ones, reported apart as a fresh proxy's first messages. */
  warmUp: number;
  burst: number;
  runs: number;
}

/** The store the proxy records into: a fresh SQLite file, or a fresh PostgreSQL database. */
async function openStore(o: ProxyBenchOptions, tmp: string, name: string) {
  return byDialect(o.dialect, {
    sqlite: async () => ({ db: null, args: ['--sqlite', join(tmp, `${name}.db`)] }),
    postgres: async () => {
      const db = await createDatabase(o.server!.url, `bench_proxy_${name}_${Date.now().toString(36)}`);
      return { db, args: ['--postgres', db.url] };
    },
  })();
}

// The proxy waits for its writer at exit (instead of leaving it to finish in the background),
// so the rows are counted once it has exited and its summary says what was lost.
const proxyEnv = (tmp: string) => ({ SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '600000', SUBAGENT_CONTEXT_PROXY_LOG: join(tmp, 'proxy.log') });

const PER_ROUND = 100;

async function latencyRun(o: ProxyBenchOptions, tmp: string): Promise<LatencyRun> {
  const store = await openStore(o, tmp, 'latency');
  try {
    const direct = new StampedPath(STAMP_AGENT[0], STAMP_AGENT.slice(1));
    const proxied = new StampedPath(process.execPath, [CLI, 'proxy', ...store.args, '--', ...STAMP_AGENT], proxyEnv(tmp));
    // Both agents and the proxy's writer started (it migrates its store) before the first message.
    await new Promise((r) => setTimeout(r, 1000));
    const run = await measureLatency(direct, proxied, { warmUp: o.warmUp, messages: o.messages, perRound: PER_ROUND, message });
    await Promise.all([direct.close(), proxied.close()]);
    return run;
  } finally {
    await store.db?.drop();
  }
}

async function burstRun(o: ProxyBenchOptions, tmp: string) {
  const store = await openStore(o, tmp, 'burst');
  try {
    const direct = new EchoPath('cat', []);
    const proxied = new EchoPath(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], proxyEnv(tmp));
    // Warm-up: one line each way, the proxy's writer ready (its store migrated).
    for (const path of [direct, proxied]) {
      path.child.stdin.write(message(0));
      await path.until(++path.sent);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const bursts = { direct: [] as number[], proxied: [] as number[] };
    for (let r = 0; r < o.runs; r++) {
      const id = 10_000_000 * (r + 1);
      const order: [EchoPath, number[]][] = [
        [direct, bursts.direct],
        [proxied, bursts.proxied],
      ];
      for (const [path, into] of r % 2 === 0 ? order : order.reverse()) into.push(await burst(path, o.burst, id + (path === proxied ? 5_000_000 : 0)));
    }
    await direct.close();
    const closing = process.hrtime.bigint();
    await proxied.close();
    const drainS = Number(process.hrtime.bigint() - closing) / 1e9;
    return { bursts, drainS, rows: await countRows(store.args, store.db), sent: proxied.sent, stderr: proxied.stderr };
  } finally {
    await store.db?.drop();
  }
}

const ms = (n: number) => `${n.toFixed(3)} ms`;

type Leg = (run: LatencyRun) => [direct: number[], proxied: number[]];

/** One leg over every run: the figure is the median run's added p99 (each run a fresh proxy and store). */
function legFinding(o: ProxyBenchOptions, runs: readonly LatencyRun[], leg: string, pick: Leg, target: boolean, detail: string): Finding {
  const each = runs.map((run) => ({ ...added(...pick(run)), n: pick(run)[1].length })).sort((x, y) => x.p99 - y.p99);
  const a = each[Math.floor((each.length - 1) / 2)];
  const range = each.length > 1 ? `; added p99 per run ${each.map((e) => `${e.p99 >= 0 ? '+' : ''}${e.p99.toFixed(3)}`).join(', ')} ms` : '';
  return {
    section: 'proxy',
    dialect: o.dialect,
    config: leg,
    measured: `p50 ${ms(a.proxied.p50)}, p99 ${ms(a.proxied.p99)} (${fmtInt(a.n)} messages, median of ${runs.length} runs)`,
    ceiling: `direct pipe p50 ${ms(a.direct.p50)}, p99 ${ms(a.direct.p99)}`,
    figure: a.p99,
    figureText: `${a.p99 >= 0 ? '+' : ''}${a.p99.toFixed(3)} ms p99 (${a.p50 >= 0 ? '+' : ''}${a.p50.toFixed(3)} ms p50)`,
    target: target ? { kind: 'at-most', value: 1, text: '< 1 ms added p99' } : null,
    detail: `${detail}${range}`,
  };
}

export async function proxyBench(o: ProxyBenchOptions): Promise<Finding[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'subagent-context-bench-proxy-'));
  try {
    const lats: LatencyRun[] = [];
    for (let r = 0; r < o.runs; r++) lats.push(await latencyRun(o, tmp));
    const b = await burstRun(o, tmp);
    const store = byDialect(o.dialect, { sqlite: 'SQLite WAL store', postgres: 'PostgreSQL store' });
    const bytes = message(1).length;
    const steals = lats.map((l) => l.stealShare).filter((x) => x !== null);
    const steal = steals.length ? `; the hypervisor took at most ${(Math.max(...steals) * 100).toFixed(1)}% of the CPU time meanwhile (steal)` : '';
    const how = `${bytes}-byte subagent session/update lines, one in flight, each teed and written as a row; direct and proxied interleaved in rounds of ${PER_ROUND}, after ${fmtInt(o.warmUp)} warm-up messages per path${steal}`;
    const summary = b.stderr.match(/subagent-context proxy: (\d+) writes recorded;(.*)/);
    const rate = (s: number[]) => o.burst / median(s);
    return [
      legFinding(o, lats, `one message through \`proxy\`, client → agent, ${store}`, (l) => [l.direct.toAgent, l.proxied.toAgent], true, how),
      legFinding(o, lats, `one message through \`proxy\`, agent → client, ${store}`, (l) => [l.direct.toClient, l.proxied.toClient], true, how),
      legFinding(
        o,
        lats,
        `round trip (two messages) through \`proxy\`, ${store}`,
        (l) => [l.direct.roundTrip, l.proxied.roundTrip],
        false,
        `${how}; the agent's own time between its read and its write included`,
      ),
      legFinding(
        o,
        lats,
        `round trip, a fresh proxy's first ${fmtInt(o.warmUp)} messages`,
        (l) => [l.coldDirect.roundTrip, l.coldProxied.roundTrip],
        false,
        `the warm-up above, timed: the relay path not yet compiled by V8, the writer starting`,
      ),
      {
        section: 'proxy',
        dialect: o.dialect,
        config: `burst of ${fmtInt(o.burst)} messages through \`proxy -- cat\``,
        measured: `${fmtInt(rate(b.bursts.proxied))} messages/s (${((rate(b.bursts.proxied) * bytes) / 2 ** 20).toFixed(1)} MiB/s)`,
        ceiling: `direct pipe ${fmtInt(rate(b.bursts.direct))} messages/s`,
        figure: rate(b.bursts.proxied) / rate(b.bursts.direct),
        figureText: fmtRatio(rate(b.bursts.proxied) / rate(b.bursts.direct)),
        target: null,
        detail: `median of ${o.runs} bursts; the writer wrote ${fmtInt(b.rows)} rows for ${fmtInt(b.sent)} messages${summary?.[2] ? ` —${summary[2]}` : ', nothing lost'}, finishing ${b.drainS.toFixed(1)} s after the last echo`,
      },
    ];
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
