// The writer under a burst, through the built binary in front of `cat` (it echoes every
// byte, so every relayed line comes back): N subagent lines in, N rows out, nothing dropped
// and nothing said on stderr — with calls updated several times in one batch (written
// in order, in rounds) as well as one update per call. And the drain after exit: a
// writer slowed by the database is handed everything the proxy held; the proxy exits
// promptly with the agent's code, the writer finishes alone, detached, and appends what became
// of the lines to its log file — or, past its time cap, says how many it did not write.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { assertBuilt, CLI } from './helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';

beforeAll(assertBuilt);

/** One ACP session/update of a Claude Code subagent call; `step` 0 launches it, 1 runs it, 2 completes it. */
function update(call: number, step = 0): string {
  const update =
    step === 0
      ? {
          sessionUpdate: 'tool_call',
          toolCallId: `toolu_burst_${call}`,
          title: 'Task',
          kind: 'think',
          status: 'pending',
          rawInput: { description: `Review part ${call}`, prompt: 'never stored', subagent_type: 'general-purpose' },
          _meta: { claudeCode: { toolName: 'Agent' } },
        }
      : {
          sessionUpdate: 'tool_call_update',
          toolCallId: `toolu_burst_${call}`,
          status: step === 1 ? 'in_progress' : 'completed',
          _meta: {
            claudeCode: {
              toolName: 'Agent',
              ...(step === 2 ? { toolResponse: { totalTokens: 1000 + call, totalDurationMs: 5000 + call, totalToolUseCount: 3 } } : {}),
            },
          },
        };
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'burst-session', update } })}\n`;
}

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** From the last line echoed (stdin is closed then) to the proxy's exit. */
  exitMs: number;
}

/** `proxy -- cat`, fed `input` at once; stdin is closed once every line has come back. */
function proxyCat(store: ProxyStore, input: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const child = spawn(process.execPath, [CLI, 'proxy', ...store.args, '--', 'cat'], { env: { ...process.env, ...PROXY_TEST_ENV, ...env } });
  const lines = input.split('\n').length - 1;
  const out: Buffer[] = [];
  let stderr = '';
  let seen = 0;
  let echoedAt = 0;
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.on('data', (chunk: Buffer) => {
    out.push(chunk);
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) seen++;
    if (seen === lines && !echoedAt) {
      echoedAt = performance.now();
      child.stdin.end();
    }
  });
  child.stdin.write(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr, exitMs: performance.now() - echoedAt })));
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Slows every subagent row's insert in the database itself (a millisecond or a few each, with the machine's load). */
function slowInserts(dialect: Dialect, steps = 400): string {
  return byDialect(dialect, {
    sqlite: `CREATE TRIGGER slow_insert BEFORE INSERT ON task_session_subagents
       WHEN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${steps}) SELECT count(*) FROM c) < 0
       BEGIN SELECT 1; END`,
    postgres: `CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$;
       CREATE TRIGGER slow_insert BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION slow_insert()`,
  });
}

const count = async (store: ProxyStore, table: string) => Number((await store.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

describeBothDialects('proxy: bursts and the drain after exit', (dialect) => {
  let store: ProxyStore;
  let dir: string;
  let logFile: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-proxy-burst-'));
    logFile = join(dir, 'proxy.log');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('N lines in, N rows out: 6,000 calls at once, 2,000 of them updated three times in a row; nothing dropped, nothing said', async () => {
    store = await openProxyStore(dialect);
    let input = '';
    for (let call = 0; call < 4_000; call++) input += update(call);
    for (let call = 4_000; call < 6_000; call++) input += update(call, 0) + update(call, 1) + update(call, 2);
    const run = await proxyCat(store, input, { SUBAGENT_CONTEXT_PROXY_LOG: logFile });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.equals(Buffer.from(input))).toBe(true);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^subagent-context proxy: recording subagents to /)]); // no loss summary
    expect(await count(store, 'task_session_subagents')).toBe(6_000);
    expect(await count(store, 'task_session_messages')).toBe(6_000);
    const done = await store.query<{
      tool_status: string;
      total_tokens: number | string;
      duration_ms: number | string;
      tool_use_count: number | string;
      n: number | string;
    }>(
      `SELECT tool_status, MIN(total_tokens) AS total_tokens, MIN(duration_ms) AS duration_ms, MIN(tool_use_count) AS tool_use_count, COUNT(*) AS n
         FROM task_session_subagents WHERE settled_at IS NOT NULL GROUP BY tool_status`,
    );
    expect(done.map((r) => [r.tool_status, Number(r.n), Number(r.total_tokens), Number(r.duration_ms), Number(r.tool_use_count)])).toEqual([
      ['completed', 2_000, 5_000, 9_000, 3],
    ]);
    const statuses = await store.query<{ status: string; n: number | string }>(
      byDialect(dialect, {
        sqlite: `SELECT json_extract(metadata, '$.status') AS status, COUNT(*) AS n FROM task_session_messages GROUP BY 1 ORDER BY 1`,
        postgres: `SELECT metadata::json ->> 'status' AS status, COUNT(*) AS n FROM task_session_messages GROUP BY 1 ORDER BY 1`,
      }),
    );
    expect(statuses.map((r) => [r.status, Number(r.n)])).toEqual([
      ['completed', 2_000],
      ['pending', 4_000],
    ]);
    expect(await store.store().checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
    expect(existsSync(logFile)).toBe(false); // the proxy waited for its writer: nothing went to the background
  });

  it('a slow database: the proxy exits promptly, the writer finishes in the background and logs it; every row arrives', async () => {
    store = await openProxyStore(dialect, { hostAndPackage: true });
    await store.exec(slowInserts(dialect));
    const input = Array.from({ length: 1_500 }, (_, call) => update(call)).join('');
    const run = await proxyCat(store, input, { SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100', SUBAGENT_CONTEXT_PROXY_LOG: logFile });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.equals(Buffer.from(input))).toBe(true);
    expect(run.exitMs).toBeLessThan(2_500); // 100 ms for the writer, the hand-over, no more
    const left = run.stderr.match(/(\d+) lines left to the writer, which finishes them in the background \(at most 60 s\) and appends the outcome to (\S+)/);
    expect(left, run.stderr).not.toBeNull();
    expect(left![2]).toBe(logFile);
    expect(Number(left![1])).toBeGreaterThan(0);
    expect(
      await until(
        () => count(store, 'task_session_subagents'),
        (n) => n === 1_500,
      ),
    ).toBe(1_500);
    const log = await until(
      async () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
      (t) => t !== '',
    );
    expect(log).toMatch(/^\S+Z subagent-context proxy \(execution [0-9a-f-]{36}\): finished in the background: \d+ writes recorded\n$/);
    // Every write is accounted for, before the proxy left or after: 1,500 subagent rows and the session's row.
    expect(Number(/(\d+) writes recorded/.exec(log)![1]) + Number(/(\d+) writes recorded/.exec(run.stderr)![1])).toBe(1_501);
  }, 90_000);

  it('past its time cap the background writer stops and logs how many lines it did not write', async () => {
    store = await openProxyStore(dialect, { hostAndPackage: true });
    await store.exec(slowInserts(dialect, 1_500));
    const input = Array.from({ length: 5_000 }, (_, call) => update(call)).join('');
    const env = { SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100', SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS: '400', SUBAGENT_CONTEXT_PROXY_LOG: logFile };
    const run = await proxyCat(store, input, env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/lines left to the writer, which finishes them in the background \(at most 400 ms\)/);
    const log = await until(
      async () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
      (t) => t !== '',
    );
    const cut = /finished in the background: (\d+) writes recorded; (\d+) lines not written when the background time ran out/.exec(log);
    expect(cut, log).not.toBeNull();
    expect(Number(cut![2])).toBeGreaterThan(0);
    expect(await count(store, 'task_session_subagents')).toBeLessThan(5_000);
  }, 90_000);
});
