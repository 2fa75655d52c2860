// What the proxy says when its writer is in trouble (review of 2026-12-05): a change of state
// (the store cannot be reached, the writer exited) is never held back by the WARN rate limit,
// and the lines a dead writer took with it are counted as such, not as a full queue or a time
// cap. The real binary in front of `cat`, both dialects, and the rate limit on its own.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedWarn } from '../src/proxy/rate-limited-warn.js';
import { Tee } from '../src/proxy/tee.js';
import { WriterChannel } from '../src/proxy/writer-channel.js';
import { assertBuilt, CLI } from './helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, proxyWriterPid, type ProxyStore, subagentLaunchLine } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const line = (i: number) => subagentLaunchLine('acp-trouble', `toolu_trouble_${i}`);

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The built proxy in front of `cat`, its first line written and stored: the writer is open and working. */
async function proxyWithOneRow(store: ProxyStore, env: NodeJS.ProcessEnv = {}) {
  const proxy = spawn(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], {
    env: { ...process.env, ...PROXY_TEST_ENV, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const seen = { stderr: '', echoed: 0 };
  proxy.stderr.on('data', (c: Buffer) => void (seen.stderr += c.toString()));
  proxy.stdout.on('data', (c: Buffer) => void (seen.echoed += c.toString().split('\n').length - 1));
  const closed = new Promise<number | null>((r) => proxy.on('close', r));
  proxy.stdin.write(line(0));
  const end = Date.now() + 30_000;
  while ((await store.query('SELECT 1 FROM task_session_subagents').catch(() => [])).length === 0) {
    if (Date.now() > end) throw new Error(`the first row never came: ${seen.stderr}`);
    await delay(20);
  }
  return { proxy, seen, closed, writer: await proxyWriterPid(proxy.pid!) };
}

describe('the WARN rate limit', () => {
  it('holds back a WARN within the interval, never a change of state, which also says what was held back', () => {
    const printed: string[] = [];
    let now = 0;
    const warn = new RateLimitedWarn(
      (t) => void printed.push(t),
      10_000,
      () => now,
    );
    warn.warn('a write failed');
    now = 1_000;
    warn.warn('another write failed');
    warn.always('cannot record: the database is gone; the session goes on unrecorded');
    now = 2_000;
    warn.warn('a third write failed');
    expect(printed).toEqual([
      'subagent-context proxy: WARN a write failed\n',
      'subagent-context proxy: WARN cannot record: the database is gone; the session goes on unrecorded (1 more WARN line held back)\n',
    ]);
  });
});

/** The config a stand-in writer is started with (it reads none of it). */
const STAND_IN_CONFIG = { target: { dialect: 'sqlite' as const, file: '/nonexistent' }, executionId: 'x', fallbackCwd: '/', logFile: '/dev/null' };

/** A stand-in writer running `body`; `broke` is a file it may create once its channel is closed. */
const standInWith = (body: (broke: string) => string) => {
  const dir = mkdtempSync(join(tmpdir(), 'writer-stand-in-'));
  const script = join(dir, 'writer.mjs');
  const broke = join(dir, 'broke');
  writeFileSync(script, `import { writeFileSync } from 'node:fs';\n${body(JSON.stringify(broke))}\n`);
  return { script, dir, broke };
};

// A writer killed with messages on their way fails them (EPIPE) before its exit is seen; which
// the proxy sees first is a race (CI, 2026-12-06: the summary said "unreachable: write EPIPE").
// A stand-in writer that closes its channel, then exits or not, forces each order.
describe('the writer channel, when a send fails before the writer exits', () => {
  const standIn = (exitAfterMs: number) =>
    standInWith(() => `process.send({ type: 'hello' }, () => process.disconnect()); setTimeout(() => process.exit(3), ${exitAfterMs});`);
  /** Sends until a send fails; the reasons the channel gave, the first after `firstWithinMs` at most. */
  async function reasonsAfterAFailedSend(script: string, firstWithinMs: number) {
    const reasons: string[] = [];
    const channel = new WriterChannel(STAND_IN_CONFIG, { message: () => {}, gone: (r) => void reasons.push(r) }, script);
    try {
      expect(await channel.listens(10_000)).toBe(true);
      const end = Date.now() + firstWithinMs;
      while (reasons.length === 0 && Date.now() < end) {
        channel.send({ type: 'reported', stats: undefined as never });
        await delay(20);
      }
      return reasons;
    } finally {
      channel.kill();
    }
  }

  it('a writer that exits soon after: its exit is the cause said, not the failed send', async () => {
    const { script, dir } = standIn(300);
    try {
      const reasons = await reasonsAfterAFailedSend(script, 5_000);
      expect(reasons[0]).toBe('the writer exited (3)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a writer that lives on with its channel closed: unreachable, once the grace is over (not never)', async () => {
    const { script, dir } = standIn(20_000);
    try {
      const reasons = await reasonsAfterAFailedSend(script, 5_000);
      expect(reasons[0]).toMatch(/^the writer is unreachable: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The proxy cannot wait out a failed send's grace at exit (review of the fix above): a writer
// whose channel broke while it lives on is reported unreachable when the proxy hands over or
// stops waiting, and what it held counts as "recorded or not", never as left to it.
describe('the tee, when its writer lives on with a broken channel', () => {
  const body = (breakOn: 'ready' | 'first batch') => (broke: string) =>
    [
      `const breakChannel = () => { process.disconnect(); writeFileSync(${broke}, ''); };`,
      `process.send({ type: 'hello' });`,
      `process.send({ type: 'ready', migrationsOk: true }, ${breakOn === 'ready' ? 'breakChannel' : 'undefined'});`,
      breakOn === 'first batch' ? `process.once('message', breakChannel);` : '',
      `setTimeout(() => {}, 5_000);`,
    ].join('\n');
  const tee = (script: string, warned: string[]) => new Tee(STAND_IN_CONFIG, new RateLimitedWarn((t) => void warned.push(t), 10_000), undefined, script);
  const push = (t: Tee, i: number) => t.fromAgent.push(Buffer.from(line(i)));

  it('a send failed in the session: at exit it is said at once, and nothing is handed over to it', async () => {
    const { script, dir, broke } = standInWith(body('ready'));
    const warned: string[] = [];
    try {
      const t = tee(script, warned);
      while (!existsSync(broke)) await delay(10);
      push(t, 1);
      await delay(300); // the pump sends line 1 after 50 ms, and that send fails
      for (let i = 2; i <= 16; i++) push(t, i);
      const summary = await t.close(300, 1_000);
      expect(summary.writerGone).toMatch(/^the writer is unreachable: /);
      expect(warned).toEqual([`subagent-context proxy: WARN ${summary.writerGone}; the session goes on unrecorded\n`]);
      // Line 1 went alone (lines 2–16 still queued: lost), or, on a slow machine, all 16 in one failed batch.
      expect([1, 16]).toContain(summary.writerUnconfirmed);
      expect(summary).toMatchObject({ writerLost: 16 - summary.writerUnconfirmed, background: 0, unwritten: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the drain failed while the proxy waited: said when the wait ends, what it held "recorded or not", not left to it', async () => {
    const { script, dir, broke } = standInWith(body('first batch'));
    const warned: string[] = [];
    try {
      const t = tee(script, warned);
      push(t, 1);
      while (!existsSync(broke)) await delay(10);
      const summary = await t.close(300, 1_000);
      expect(summary.writerGone).toMatch(/^the writer is unreachable: /);
      expect(summary).toMatchObject({ writerUnconfirmed: 1, writerLost: 0, background: 0, unwritten: 0 });
      expect(warned).toEqual([]); // the summary says it
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeBothDialects('proxy: a writer that dies', (dialect) => {
  it('killed mid-session: one WARN names it, and the summary counts the lines lost with it (not a full queue)', async () => {
    const store = await openProxyStore(dialect);
    try {
      const { proxy, seen, closed, writer } = await proxyWithOneRow(store);
      process.kill(writer, 'SIGKILL');
      while (!seen.stderr.includes('the writer exited')) await delay(10);
      for (let i = 1; i <= 20; i++) proxy.stdin.write(line(i));
      while (seen.echoed < 21) await delay(10);
      proxy.stdin.end();
      expect(await closed).toBe(0);
      expect(seen.stderr).toContain('subagent-context proxy: WARN the writer exited (SIGKILL); the session goes on unrecorded\n');
      // Line 0 is committed (its row was read above), but the kill may land before the writer's
      // confirmation reaches the proxy: then it is counted as unconfirmed, never as lost nor twice.
      const written = Number(/(\d+) writes recorded/.exec(seen.stderr)?.[1]);
      const unconfirmed = written > 0 ? '' : ', 1 lines recorded or not: the writer exited (SIGKILL) before confirming them';
      expect(seen.stderr).toContain(`subagent-context proxy: ${written} writes recorded; 20 lines not recorded: the writer exited (SIGKILL)${unconfirmed}\n`);
      expect(seen.stderr).not.toContain('queue was full');
      expect(seen.stderr).not.toContain('time ran out');
    } finally {
      await store.close();
    }
  });

  it('killed while the proxy waits for it at exit: the summary names the exit, and what it held is "recorded or not", not lost', async () => {
    const store = await openProxyStore(dialect);
    const tmp = mkdtempSync(join(tmpdir(), 'proxy-trouble-'));
    try {
      const { proxy, seen, closed, writer } = await proxyWithOneRow(store, { SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '60000', TMPDIR: tmp });
      process.kill(writer, 'SIGSTOP'); // it reads and writes nothing more
      proxy.stdin.write(line(1)); // a batch that never ends: what follows stays queued, and goes to the hand-over file
      await delay(300);
      for (let i = 2; i <= 20; i++) proxy.stdin.write(line(i));
      while (seen.echoed < 21) await delay(10);
      proxy.stdin.end(); // the agent exits; the proxy hands everything over and waits for the writer
      // The hand-over file shows the proxy is in its exit wait. Without it (all 20 lines already
      // on the channel, if line 0's 'done' came late) the wait starts as soon as the agent exits.
      const handOverFile = () => readdirSync(tmp, { recursive: true }).some((n) => String(n).endsWith(`handover-${writer}.bin`));
      const patience = Date.now() + 2_000;
      while (!handOverFile() && Date.now() < patience) await delay(10);
      process.kill(writer, 'SIGKILL');
      expect(await closed).toBe(0);
      // Lines 1–20 are in its hands (on the channel or in the file); so is line 0 when its
      // confirmation had not reached the proxy before the stop. None is counted as lost.
      const written = Number(/(\d+) writes recorded/.exec(seen.stderr)?.[1]);
      const held = written > 0 ? 20 : 21;
      expect(seen.stderr).toContain(
        `subagent-context proxy: ${written} writes recorded; ${held} lines recorded or not: the writer exited (SIGKILL) before confirming them\n`,
      );
      expect(seen.stderr).not.toContain('not recorded');
      expect(seen.stderr).not.toContain('time ran out');
    } finally {
      await store.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
