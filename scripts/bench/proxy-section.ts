// `subagent-context proxy` (issue 21): what standing between an editor and its agent costs.
// The agent is `cat` (it echoes every byte at once), so a round trip is client → agent →
// client with nothing else in it. Direct: client ↔ cat. Proxied: client ↔ proxy ↔ cat, the
// proxy recording into a real store. Each message is a session/update of a subagent tool call
// with a fresh toolCallId, so both taps match it and the writer really writes a row per
// message — the worst case. Latency: sequential round trips, direct and proxied interleaved in
// rounds in the same run; the figure is the p99 added (proxied p99 − direct p99; target < 1 ms,
// two hops of the proxy per round trip). Burst: N messages written at once, time until the last
// echo, proxied against direct (and what the writer dropped, from the proxy's stderr).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import { createDatabase } from '../lib/postgres-database.js';
import type { Finding } from './findings.js';
import { fmtInt, fmtRatio, median } from './stats.js';
import type { DialectName } from '../../src/dialect.js';

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

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

interface LatencyResult {
  direct: number[];
  proxied: number[];
}

async function latency(direct: EchoPath, proxied: EchoPath, rounds: number, perRound: number, firstId: number): Promise<LatencyResult> {
  const result: LatencyResult = { direct: [], proxied: [] };
  let id = firstId;
  for (let r = 0; r < rounds; r++) {
    for (const [path, into] of (r % 2 === 0
      ? [
          [direct, result.direct],
          [proxied, result.proxied],
        ]
      : [
          [proxied, result.proxied],
          [direct, result.direct],
        ]) as [EchoPath, number[]][]) {
      for (let i = 0; i < perRound; i++) {
        const line = message(id++);
        const n = ++path.sent;
        const start = process.hrtime.bigint();
        path.child.stdin.write(line);
        await path.until(n);
        into.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
  }
  return result;
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
  messages: number;
  burst: number;
  runs: number;
}

export async function proxyBench(o: ProxyBenchOptions): Promise<Finding[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'subagent-context-bench-proxy-'));
  const db = o.dialect === 'postgres' ? await createDatabase(o.server!.url, `bench_proxy_${Date.now().toString(36)}`) : null;
  const storeArgs = db ? ['--postgres', db.url] : ['--sqlite', join(tmp, 'proxy.db')];
  try {
    const direct = new EchoPath('cat', []);
    // The proxy waits for its writer at exit (instead of leaving it to finish in the
    // background), so the rows are counted once it has exited and its summary says what was lost.
    const proxied = new EchoPath(process.execPath, [CLI, 'proxy', ...storeArgs, '--', 'cat'], {
      SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '600000',
      SUBAGENT_CONTEXT_PROXY_LOG: join(tmp, 'proxy.log'),
    });
    // Warm-up: both paths started, the proxy's writer migrated its store.
    await latency(direct, proxied, 2, 50, 0);
    await new Promise((r) => setTimeout(r, 1000));
    const perRound = 100;
    const lat = await latency(direct, proxied, Math.max(2, Math.round(o.messages / perRound)), perRound, 1_000_000);
    const bursts = { direct: [] as number[], proxied: [] as number[] };
    for (let r = 0; r < o.runs; r++) {
      const id = 10_000_000 * (r + 1);
      for (const [path, into] of (r % 2 === 0
        ? [
            [direct, bursts.direct],
            [proxied, bursts.proxied],
          ]
        : [
            [proxied, bursts.proxied],
            [direct, bursts.direct],
          ]) as [EchoPath, number[]][]) {
        into.push(await burst(path, o.burst, id + (path === proxied ? 5_000_000 : 0)));
      }
    }
    await direct.close();
    const closing = process.hrtime.bigint();
    await proxied.close();
    const drainS = Number(process.hrtime.bigint() - closing) / 1e9;
    const rows = await countRows(storeArgs, db);
    const d = [...lat.direct].sort((a, b) => a - b);
    const p = [...lat.proxied].sort((a, b) => a - b);
    const added99 = percentile(p, 99) - percentile(d, 99);
    const added50 = percentile(p, 50) - percentile(d, 50);
    const summary = proxied.stderr.match(/subagent-context proxy: (\d+) writes recorded;(.*)/);
    const bytes = message(1).length;
    const rate = (s: number[]) => o.burst / median(s);
    return [
      {
        section: 'proxy',
        dialect: o.dialect,
        config: `round trip through \`proxy -- cat\`, ${o.dialect === 'sqlite' ? 'SQLite WAL' : 'PostgreSQL'} store`,
        measured: `p50 ${percentile(p, 50).toFixed(3)} ms, p99 ${percentile(p, 99).toFixed(3)} ms (${fmtInt(p.length)} messages)`,
        ceiling: `direct pipe p50 ${percentile(d, 50).toFixed(3)} ms, p99 ${percentile(d, 99).toFixed(3)} ms`,
        figure: added99,
        figureText: `+${added99.toFixed(3)} ms p99 (+${added50.toFixed(3)} ms p50)`,
        target: { kind: 'at-most', value: 1, text: '< 1 ms added p99' },
        detail: `${bytes}-byte subagent session/update lines, each teed and written as a row; direct and proxied interleaved in rounds of ${perRound}`,
      },
      {
        section: 'proxy',
        dialect: o.dialect,
        config: `burst of ${fmtInt(o.burst)} messages through \`proxy -- cat\``,
        measured: `${fmtInt(rate(bursts.proxied))} messages/s (${((rate(bursts.proxied) * bytes) / 2 ** 20).toFixed(1)} MiB/s)`,
        ceiling: `direct pipe ${fmtInt(rate(bursts.direct))} messages/s`,
        figure: rate(bursts.proxied) / rate(bursts.direct),
        figureText: fmtRatio(rate(bursts.proxied) / rate(bursts.direct)),
        target: null,
        detail: `median of ${o.runs} bursts; the writer wrote ${fmtInt(rows)} rows for ${fmtInt(o.burst * o.runs + p.length + 100)} messages${summary?.[2] ? ` —${summary[2]}` : ', nothing lost'}, finishing ${drainS.toFixed(1)} s after the last echo`,
      },
    ];
  } finally {
    await db?.drop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
