// The proxy ends as the agent does (review of 2026-12-05): when the agent exits while a process
// it started still holds its stdout (a shell agent's `cmd &`), the proxy relays what the agent
// wrote and ends with its code, not when that process lets go of the pipe; and an agent killed
// by SIGUSR1 or SIGPIPE, which Node would not die of if raised on itself (it opens its inspector,
// or ignores it), ends the proxy with the shell's code for that signal. The real binary.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, CLI } from './helpers/cli.js';
import { openProxyStore, PROXY_TEST_ENV, type ProxyStore } from './helpers/proxy-store.js';
import { run } from './helpers/run-command.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

describeBothDialects('proxy: ends as the agent ends', (dialect) => {
  const proxy = async (store: ProxyStore, script: string) => {
    const started = performance.now();
    const result = await run(process.execPath, [CLI, 'proxy', ...store.args, '--', 'sh', '-c', script], {
      cwd: process.cwd(),
      env: PROXY_TEST_ENV,
      timeoutMs: 30_000,
    });
    return { ...result, ms: performance.now() - started };
  };

  it('an agent that exits while a process it started holds its stdout: its output relayed, its code, without waiting for that process', async () => {
    const store = await openProxyStore(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'proxy-agent-exit-'));
    const done = join(dir, 'done');
    try {
      // The process the agent leaves behind marks its end in a file: the proxy must have ended
      // before it (a causal check, not a wall-clock bound a loaded machine could miss).
      const r = await proxy(store, `(sleep 20; touch '${done}') 2>/dev/null & echo "last words"; exit 4`); // its stderr elsewhere: the test's pipe would wait for it
      expect(r.code, r.output).toBe(4);
      expect(r.stdout).toBe('last words\n');
      expect(existsSync(done), `the proxy ended ${r.ms.toFixed(0)} ms after it started, after the agent's process`).toBe(false);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an agent killed by SIGUSR1 or SIGPIPE: the shell code of that signal, and no inspector opened', async () => {
    const store = await openProxyStore(dialect);
    try {
      for (const [signal, code] of [
        ['USR1', 138],
        ['PIPE', 141],
      ] as const) {
        const r = await proxy(store, `kill -${signal} $$`);
        expect(r.code, `${signal}: ${r.output}`).toBe(code);
        expect(r.stderr).not.toContain('Debugger listening');
      }
    } finally {
      await store.close();
    }
  });
});
