// What the proxy says when its writer is in trouble (review of 2026-12-05): a change of state
// (the store cannot be reached, the writer exited) is never held back by the WARN rate limit,
// and the lines a dead writer took with it are counted as such, not as a full queue or a time
// cap. The real binary in front of `cat`, both dialects, and the rate limit on its own.
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedWarn } from '../src/proxy/rate-limited-warn.js';
import { assertBuilt, CLI } from './helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, proxyWriterPid } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const line = (i: number) =>
  `${JSON.stringify({
    jsonrpc: '2.0',
    method: 'session/update',
    params: {
      sessionId: 'acp-trouble',
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: `toolu_trouble_${i}`,
        title: 'Task',
        status: 'pending',
        rawInput: {},
        _meta: { claudeCode: { toolName: 'Agent' } },
      },
    },
  })}\n`;

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

describeBothDialects('proxy: a writer that dies', (dialect) => {
  it('killed mid-session: one WARN names it, and the summary counts the lines lost with it (not a full queue)', async () => {
    const store = await openProxyStore(dialect);
    try {
      const proxy = spawn(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], {
        env: { ...process.env, ...PROXY_TEST_ENV },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      let echoed = 0;
      proxy.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
      proxy.stdout.on('data', (c: Buffer) => void (echoed += c.toString().split('\n').length - 1));
      const closed = new Promise<number | null>((r) => proxy.on('close', r));
      proxy.stdin.write(line(0));
      const end = Date.now() + 30_000;
      while ((await store.query('SELECT 1 FROM task_session_subagents').catch(() => [])).length === 0) {
        if (Date.now() > end) throw new Error(`the first row never came: ${stderr}`);
        await delay(20);
      }
      const writer = await proxyWriterPid(proxy.pid!);
      process.kill(writer, 'SIGKILL');
      while (!stderr.includes('the writer exited')) await delay(10);
      for (let i = 1; i <= 20; i++) proxy.stdin.write(line(i));
      while (echoed < 21) await delay(10);
      proxy.stdin.end();
      expect(await closed).toBe(0);
      expect(stderr).toContain('subagent-context proxy: WARN the writer exited (SIGKILL); the session goes on unrecorded\n');
      // Line 0 is committed (its row was read above), but the kill may land before the writer's
      // confirmation reaches the proxy: then it is counted as unconfirmed, never as lost nor twice.
      const written = Number(/(\d+) writes recorded/.exec(stderr)?.[1]);
      const unconfirmed = written > 0 ? '' : ", 1 lines in the writer's hands when it stopped, recorded or not (it had not confirmed them)";
      expect(stderr).toContain(`subagent-context proxy: ${written} writes recorded; 20 lines not recorded: the writer exited (SIGKILL)${unconfirmed}\n`);
      expect(stderr).not.toContain('queue was full');
      expect(stderr).not.toContain('time ran out');
    } finally {
      await store.close();
    }
  });
});
