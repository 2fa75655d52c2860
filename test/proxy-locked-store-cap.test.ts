// A writer left to finish alone while another connection holds the store locked (review of
// 2026-12-05): on SQLite its batch waited for the write lock in one synchronous 5 s busy wait,
// so it read neither the proxy's drain nor the counts the proxy's summary had given, and its
// background cap's timer could not fire (14.9 s on a 2 s cap). The wait is now in 100 ms slices
// with the event loop free between them (src/sqlite/transaction.ts, LockWait): the writer stops
// at its cap and its log counts only the lines the summary left to it. PostgreSQL's waits never
// blocked the process; the same case guards it there. The lock: a process holding BEGIN
// IMMEDIATE on the SQLite file; a transaction holding task_session_messages in ACCESS EXCLUSIVE.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { clientFor } from '../scripts/lib/postgres-database.js';
import { byDialect } from './helpers/by-dialect.js';
import { assertBuilt } from './helpers/cli.js';
import { catProxy, openProxyStore, PROXY_TEST_ENV, proxyWriterPid, subagentLaunchLine, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';

beforeAll(assertBuilt);

const line = (i: number) => subagentLaunchLine('acp-locked', `toolu_locked_${i}`);
const LOCKED_LINES = 20;
const BACKGROUND_MS = 1_000;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SQLITE_LOCKER = `import Database from 'better-sqlite3';
  const db = new Database(process.argv[1]);
  db.exec('BEGIN IMMEDIATE');
  process.stdout.write('held\\n');
  setInterval(() => {}, 1000);`;

/** Takes the store's write lock and keeps it until release(). */
async function lockStore(dialect: Dialect, store: ProxyStore): Promise<{ release(): Promise<void> }> {
  const where = store.args[1];
  return byDialect(dialect, {
    sqlite: () =>
      new Promise<{ release(): Promise<void> }>((resolve, reject) => {
        const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', SQLITE_LOCKER, where], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => void (stderr += c.toString()));
        child.on('exit', (code) => reject(new Error(`the locker exited ${code}: ${stderr}`)));
        const gone = new Promise<void>((r) => child.on('exit', () => r()));
        child.stdout!.on('data', (c: Buffer) => {
          if (c.toString().includes('held'))
            resolve({
              release: async () => {
                child.kill('SIGKILL');
                await gone;
              },
            });
        });
      }),
    postgres: async () => {
      const client = clientFor(where);
      await client.connect();
      await client.query('BEGIN');
      await client.query('LOCK TABLE task_session_messages IN ACCESS EXCLUSIVE MODE');
      return {
        release: async () => {
          await client.query('ROLLBACK');
          await client.end();
        },
      };
    },
  })();
}

/** Whether the process still runs: an exited one not yet reaped by whoever inherited it (the proxy is gone) is a zombie, not running (Linux /proc). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describeBothDialects('proxy: a writer left alone on a locked store', (dialect) => {
  it('stops at its background cap and logs only the lines the summary left to it', async () => {
    const store = await openProxyStore(dialect, { hostAndPackage: true });
    const dir = mkdtempSync(join(tmpdir(), 'proxy-locked-'));
    const logFile = join(dir, 'proxy.log');
    let lock: { release(): Promise<void> } | undefined;
    try {
      const env = {
        ...process.env,
        ...PROXY_TEST_ENV,
        SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100',
        SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS: String(BACKGROUND_MS),
        SUBAGENT_CONTEXT_PROXY_LOG: logFile,
      };
      const run = catProxy(store.args, env);
      const proxy = run.process;
      const writer = await proxyWriterPid(proxy.pid!);
      proxy.stdin.write(line(0));
      const end = Date.now() + 30_000;
      while ((await store.query("SELECT 1 FROM task_session_subagents WHERE tool_call_id = 'toolu_locked_0'")).length === 0) {
        if (Date.now() > end) throw new Error(`line 0 never came: ${run.stderr()}`);
        await delay(20);
      }
      await delay(200); // the batch's 'done', sent right after its commit, reaches the proxy
      lock = await lockStore(dialect, store);
      for (let i = 1; i <= LOCKED_LINES; i++) proxy.stdin.write(line(i));
      while (run.echoed() < LOCKED_LINES + 1) await delay(10);
      await delay(200); // the writer has the batch and waits for the lock
      proxy.stdin.end();
      expect(await run.closed).toBe(0);
      const left = performance.now();
      // Line 0's writes were confirmed before the lock; the rest the summary leaves to the writer.
      expect(run.stderr()).toMatch(new RegExp(`subagent-context proxy: [1-9]\\d* writes recorded; ${LOCKED_LINES} lines left to the writer`));
      while (running(writer) && performance.now() - left < 20_000) await delay(20);
      const stoppedAfter = performance.now() - left;
      // The cap, plus a slice and the process's exit: not a 5 s busy wait (or two).
      expect(stoppedAfter, `the writer stopped ${stoppedAfter.toFixed(0)} ms after the proxy left`).toBeLessThan(BACKGROUND_MS + 1_500);
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      expect(log).toMatch(new RegExp(`finished in the background: 0 writes recorded; ${LOCKED_LINES} lines not written when the background time ran out\\n$`));
      await lock.release();
      lock = undefined;
      const rows = await store.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM task_session_subagents');
      expect(Number(rows[0].n)).toBe(1);
    } finally {
      await lock?.release();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
