// The background writer's time cap holds even when its event loop does not turn (a review,
// 2026-12-07: Node 20's recursive mkdir under /proc kept a writer spinning a core 17 minutes
// after its proxy had exited; the cap is a timer, which never fired). A fixture blocks the
// writer's event loop for good when the proxy hands over: after the writer heard it, or before
// (a second review: a writer stuck before the drain, as the /proc hang was at the store's
// opening, never started its watchdog and lived on). The writer's watchdog thread ends it 5 s
// past the cap, with a line in the log, the log's folder made if need be; a writer paused for
// less than a cap of almost 2^31 ms finishes (a delay past 2^31 - 1 ms fired the watchdog's
// timer at once, which killed a healthy writer), and so does one whose watchdog's wall clock
// jumps ten minutes (the deadline is on the monotonic clock). Both dialects.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCliBinary } from './helpers/cli.js';
import { goneWithin } from './helpers/processes.js';
import { openProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';

beforeAll(assertBuilt);

const HANG = pathToFileURL(join(import.meta.dirname, 'fixtures', 'hang-writer.mjs')).href;

/** A proxy run whose writer blocks at the hand-over (`when`); resolves with its log once no process of it is left, or throws. */
async function stuckWriter(
  dialect: Dialect,
  when: 'before-drain' | 'after-drain' | 'pause-after-drain',
  backgroundMs = 300,
  clockStep = false,
): Promise<string> {
  const store = await openProxyStore(dialect);
  const dir = mkdtempSync(join(tmpdir(), 'proxy-watchdog-'));
  const logFile = join(dir, 'logs', 'not-made-yet', 'proxy.log'); // in the writer's environment: finds it
  try {
    const env = {
      ...process.env,
      NODE_OPTIONS: `--import ${HANG}`,
      HANG_WRITER: when,
      ...(clockStep ? { HANG_WRITER_CLOCK_STEP: '1' } : {}),
      SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100',
      SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS: String(backgroundMs),
      SUBAGENT_CONTEXT_PROXY_LOG: logFile,
    };
    const run = await runCliBinary(['proxy', ...store.args, '--', process.execPath, '-e', 'setTimeout(() => process.exit(4), 500)'], 30_000, { env });
    expect(run.code, run.stderr).toBe(4);
    expect(await goneWithin(logFile, 15_000), `${when}: the writer is still there`).toEqual([]);
    return readFileSync(logFile, 'utf8');
  } finally {
    // A writer the test found still there would block for good (Atomics.wait): not left behind.
    for (const pid of await goneWithin(logFile, 0)) process.kill(pid, 'SIGKILL');
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describeBothDialects('proxy: a writer whose event loop is stuck', (dialect) => {
  it('is killed by its watchdog 5 s past its background cap, stuck after or before it heard the drain, and says so in the log; one only paused finishes under a cap near 2^31 ms', async () => {
    const [paused, stepped, ...stuck] = await Promise.all([
      stuckWriter(dialect, 'pause-after-drain', 2 ** 31 - 2_000),
      stuckWriter(dialect, 'pause-after-drain', 60_000, true), // its watchdog's wall clock ten minutes ahead

      stuckWriter(dialect, 'after-drain'),
      stuckWriter(dialect, 'before-drain'),
    ]);
    for (const log of [paused, stepped]) {
      expect(log).toMatch(/finished in the background/);
      expect(log).not.toMatch(/killed/);
    }
    for (const log of stuck)
      expect(log).toMatch(
        /: the writer was still running 5300 ms after it was left to finish, past its time cap: killed; what it had not committed rolls back\n$/,
      );
  }, 60_000);
});
