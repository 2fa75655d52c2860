// The proxy's added latency per message (issue 21: "p99 < 1 ms added"). Each message is timed
// one way on the machine's monotonic clock: client → agent (the client's write to the agent's
// read) and agent → client (the agent's write to the client's read), by an agent that stamps
// what it reads (stamp-echo-agent.ts). Direct (client ↔ agent) and proxied (client ↔ proxy ↔
// agent) paths are measured in the same run, interleaved in rounds, sequentially (one message
// in flight), after a warm-up whose figures are kept apart: a fresh proxy's first messages run
// before V8 has compiled its relay path, and they are a cost of starting, reported on their own.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from './stats.js';

export const STAMP_AGENT = [process.execPath, '--import', 'tsx', join(import.meta.dirname, 'stamp-echo-agent.ts')];

export interface Trips {
  /** Client's write → agent's read, ms. */
  toAgent: number[];
  /** Agent's write → client's read, ms. */
  toClient: number[];
  /** Client's write → client's read of the echo, ms. */
  roundTrip: number[];
}

const trips = (): Trips => ({ toAgent: [], toClient: [], roundTrip: [] });
const STAMPS = /"t1":"(\d+)","t2":"(\d+)"\}$/;

/** One path to a stamping agent: one message in flight at a time. */
export class StampedPath {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  private pending = '';
  private waiting: ((line: string, read: bigint) => void) | null = null;

  constructor(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdout.setEncoding('latin1').on('data', (chunk: string) => {
      const read = process.hrtime.bigint();
      this.pending += chunk;
      const nl = this.pending.indexOf('\n');
      if (nl === -1) return;
      const line = this.pending.slice(0, nl);
      this.pending = this.pending.slice(nl + 1);
      this.waiting?.(line, read);
    });
  }

  /** Sends one line and records its trip into `into`. */
  async trip(line: Buffer, into: Trips): Promise<void> {
    let written = 0n;
    const [echo, read] = await new Promise<[string, bigint]>((resolve) => {
      this.waiting = (l, r) => resolve([l, r]);
      written = process.hrtime.bigint();
      this.child.stdin.write(line);
    });
    const stamps = STAMPS.exec(echo);
    if (!stamps) throw new Error(`the agent's echo has no stamps: ${echo.slice(0, 200)}`);
    const [agentRead, agentWrote] = [BigInt(stamps[1]), BigInt(stamps[2])];
    into.toAgent.push(Number(agentRead - written) / 1e6);
    into.toClient.push(Number(read - agentWrote) / 1e6);
    into.roundTrip.push(Number(read - written) / 1e6);
  }

  async close(): Promise<void> {
    const done = new Promise((r) => this.child.once('close', r));
    this.child.stdin.end();
    await done;
  }
}

export interface LatencyRun {
  direct: Trips;
  proxied: Trips;
  /** The proxy's first messages after it started (the warm-up), and the direct path's. */
  coldDirect: Trips;
  coldProxied: Trips;
  /** Share of the CPU time the hypervisor took from this machine during the measured rounds. */
  stealShare: number | null;
}

/** Interleaves the two paths in rounds of `perRound` messages, alternating which goes first. */
async function rounds(
  direct: StampedPath,
  proxied: StampedPath,
  count: number,
  perRound: number,
  into: [Trips, Trips],
  message: (i: number) => Buffer,
  first: number,
): Promise<number> {
  let id = first;
  for (let r = 0; r * perRound < count; r++) {
    const order: [StampedPath, Trips][] = [
      [direct, into[0]],
      [proxied, into[1]],
    ];
    for (const [path, trips] of r % 2 === 0 ? order : order.reverse()) {
      for (let i = 0; i < perRound; i++) await path.trip(message(id++), trips);
    }
  }
  return id;
}

export async function measureLatency(
  direct: StampedPath,
  proxied: StampedPath,
  o: { warmUp: number; messages: number; perRound: number; message: (i: number) => Buffer },
): Promise<LatencyRun> {
  const run: LatencyRun = { direct: trips(), proxied: trips(), coldDirect: trips(), coldProxied: trips(), stealShare: null };
  const next = await rounds(direct, proxied, o.warmUp, o.perRound, [run.coldDirect, run.coldProxied], o.message, 0);
  const before = cpuTicks();
  await rounds(direct, proxied, o.messages, o.perRound, [run.direct, run.proxied], o.message, next);
  const after = cpuTicks();
  if (before && after && after.total > before.total) run.stealShare = (after.steal - before.steal) / (after.total - before.total);
  return run;
}

/** The machine's CPU ticks, and those stolen by the hypervisor (Linux /proc/stat; null elsewhere). */
function cpuTicks(): { total: number; steal: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/** p50 and p99 of one leg, and what the proxy added to them. */
export function added(direct: readonly number[], proxied: readonly number[]) {
  const p = (values: readonly number[], q: number) => percentile(values, q);
  return {
    direct: { p50: p(direct, 50), p99: p(direct, 99) },
    proxied: { p50: p(proxied, 50), p99: p(proxied, 99) },
    p50: p(proxied, 50) - p(direct, 50),
    p99: p(proxied, 99) - p(direct, 99),
  };
}
