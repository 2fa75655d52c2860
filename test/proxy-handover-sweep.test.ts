// A writer killed before reading the proxy's hand-over file (src/proxy/spill.ts) leaves it in
// the temp folder, holding the session's tool calls. The next proxy's writer removes it and
// says how many lines were never written — on stderr and in the log file — and leaves alone a
// hand-over whose writer is still alive (it is being read) and anything else of that name.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { LineBatch } from '../src/proxy/writer-protocol.js';
import { assertBuilt, CLI } from './helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, proxyWriterPid, type ProxyStore } from './helpers/proxy-store.js';
import { run } from './helpers/run-command.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

function batchOf(lines: number): LineBatch {
  const line = Buffer.from('{"jsonrpc":"2.0","method":"session/update"}');
  const bytes = Buffer.concat(Array.from({ length: lines }, () => line));
  return { type: 'lines', bytes, ends: Uint32Array.from({ length: lines }, (_, i) => (i + 1) * line.length), directions: new Uint8Array(lines).fill(1) };
}

/** A hand-over folder as the proxy writes it, for the writer `pid`. */
function handover(tmp: string, name: string, pid: number, batches: LineBatch[]): string {
  const folder = join(tmp, `subagent-context-handover-${name}`);
  mkdirSync(folder);
  writeFileSync(join(folder, `handover-${pid}.bin`), serialize(batches), { mode: 0o600 });
  return folder;
}

/** The pid of a process that has exited. */
const deadPid = () => spawnSync('true').pid!;

describeBothDialects('proxy: hand-overs left by a writer that stopped', (dialect) => {
  let tmp: string;
  let store: ProxyStore;
  beforeEach(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'subagent-context-sweep-'));
    store = await openProxyStore(dialect);
  });
  afterEach(async () => {
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('removes a dead writer’s hand-over and one over a day old, says how many lines were lost, keeps a live one and other folders', async () => {
    const dead = handover(tmp, 'dead', deadPid(), [batchOf(3), batchOf(2)]);
    const old = handover(tmp, 'old', process.pid, [batchOf(4)]);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    utimesSync(join(old, `handover-${process.pid}.bin`), twoDaysAgo, twoDaysAgo);
    const live = handover(tmp, 'live', process.pid, [batchOf(1)]);
    const unreadable = join(tmp, 'subagent-context-handover-torn');
    mkdirSync(unreadable);
    writeFileSync(join(unreadable, `handover-${deadPid()}.bin`), 'not a serialized batch');
    const other = join(tmp, 'subagent-context-handover-other');
    mkdirSync(other);
    writeFileSync(join(other, 'notes.txt'), 'not a hand-over');
    const logFile = join(tmp, 'proxy.log');

    const result = await run(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], {
      cwd: tmp,
      env: { ...PROXY_TEST_ENV, SUBAGENT_CONTEXT_PROXY_LOG: logFile, TMPDIR: tmp },
      timeoutMs: 60_000,
    });

    expect(result.code, result.output).toBe(0);
    expect([dead, old, unreadable].filter(existsSync)).toEqual([]);
    expect([live, other].filter(existsSync)).toEqual([live, other]);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(
      /subagent-context-handover-dead\/handover-\d+\.bin, left by an earlier run whose writer stopped before reading it: 5 lines were never written/,
    );
    expect(log).toMatch(/subagent-context-handover-old\/handover-\d+\.bin, left by an earlier run [^\n]*: 4 lines were never written/);
    expect(log).toMatch(/subagent-context-handover-torn\/handover-\d+\.bin, left by an earlier run [^\n]*: its lines were never written/);
    expect(log.trim().split('\n')).toHaveLength(3);
    expect(result.stderr).toMatch(
      /handover-dead\/handover-\d+\.bin, left by an earlier run whose writer stopped before reading it: 5 lines were never written/,
    );
  });

  it('a proxy whose writer stops before the hand-over leaves the file; the next run removes it and counts its lines', async () => {
    const env = { ...process.env, ...PROXY_TEST_ENV, SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100', SUBAGENT_CONTEXT_PROXY_LOG: join(tmp, 'proxy.log'), TMPDIR: tmp };
    const proxy = spawn(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let echoed = 0;
    proxy.stdout.on('data', (chunk: Buffer) => void (echoed += chunk.toString().split('\n').length - 1));
    const exited = new Promise<number | null>((r) => proxy.on('close', r));
    const echoes = async (n: number) => {
      while (echoed < n) await delay(10);
    };

    proxy.stdin.write(subagentLine(0)); // the writer opens the store and writes it
    await until(async () => (await store.query('SELECT 1 FROM task_session_subagents')).length === 1);
    const writerPid = await proxyWriterPid(proxy.pid!);
    process.kill(writerPid, 'SIGSTOP'); // it reads nothing from now on
    proxy.stdin.write(subagentLine(1)); // sent to the stopped writer after the tee's batching delay: a batch in flight that never ends
    await echoes(2);
    await delay(300);
    for (let i = 2; i < 22; i++) proxy.stdin.write(subagentLine(i)); // queued behind it, handed over at exit
    await echoes(22);
    proxy.stdin.end();
    expect(await exited).toBe(0);
    const file = join(
      tmp,
      readdirSync(tmp).find((n) => n.startsWith('subagent-context-handover-'))!,
      `handover-${writerPid}.bin`,
    );
    expect(existsSync(file)).toBe(true);
    process.kill(writerPid, 'SIGKILL');
    // SIGKILL is delivered, not done: a loaded machine can run the next proxy's sweep while the
    // stopped writer is still being torn down, alive to it (seen once in CI). The writer is gone
    // once /proc no longer has it or it is a zombie (its parent, the proxy, has exited).
    await until(async () => ['', 'Z'].includes(processState(writerPid)));
    // Lines 2–21 are always in the file. Line 1 is too when the writer was stopped after
    // committing line 0 but before the tee had its 'done': batch 0 was then still in flight,
    // so line 1 waited in the queue instead of going to the writer (seen once in CI). Either
    // way the sweep must report exactly what the file holds.
    const held = toolCallsIn(file);
    const queuedBehind = Array.from({ length: 20 }, (_, k) => `toolu_sweep_${k + 2}`);
    expect([queuedBehind, ['toolu_sweep_1', ...queuedBehind]]).toContainEqual(held);

    const next = await run(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], { cwd: tmp, env, timeoutMs: 60_000 });
    expect(next.code, next.output).toBe(0);
    expect(existsSync(file), next.output).toBe(false);
    expect(readFileSync(join(tmp, 'proxy.log'), 'utf8')).toContain(
      `${file}, left by an earlier run whose writer stopped before reading it: ${held.length} lines were never written`,
    );
  });
});

/** A process's state letter from /proc/<pid>/stat (after its name, which may hold ') '), or '' once it is gone. */
function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return '';
  }
}

/** The tool call ids of the lines a hand-over file holds, in order. */
function toolCallsIn(file: string): string[] {
  const batches = deserialize(readFileSync(file)) as LineBatch[];
  return batches.flatMap((b) =>
    Array.from(b.ends, (end, i) => {
      const line = Buffer.from(b.bytes.subarray(i === 0 ? 0 : b.ends[i - 1], end)).toString('utf8');
      return /toolu_sweep_\d+/.exec(line)?.[0] ?? line;
    }),
  );
}

function subagentLine(i: number): string {
  const update = {
    sessionUpdate: 'tool_call',
    toolCallId: `toolu_sweep_${i}`,
    title: 'Task',
    status: 'pending',
    rawInput: { description: `Part ${i}`, subagent_type: 'general-purpose' },
    _meta: { claudeCode: { toolName: 'Agent' } },
  };
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'sweep-session', update } })}\n`;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  // The store does not exist until the writer has created it: a failing read is a 'not yet'.
  while (!(await done().catch(() => false))) {
    if (Date.now() > end) throw new Error('timed out');
    await delay(50);
  }
}
