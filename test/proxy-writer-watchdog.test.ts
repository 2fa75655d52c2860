// The background writer's time cap holds even when its event loop does not turn (a review,
// 2026-12-07: Node 20's recursive mkdir under /proc kept a writer spinning a core 17 minutes
// after its proxy had exited; the cap is a timer, which never fired). A fixture blocks the
// writer's event loop for good once the proxy hands over; the writer's watchdog thread ends it
// 5 s past the cap, with a line in the log. Both dialects.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCliBinary } from './helpers/cli.js';
import { goneWithin } from './helpers/processes.js';
import { openProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const HANG = pathToFileURL(join(import.meta.dirname, 'fixtures', 'hang-writer.mjs')).href;

describeBothDialects('proxy: a writer whose event loop is stuck', (dialect) => {
  it('is killed by its watchdog 5 s past its background cap, and says so in the log', async () => {
    const store = await openProxyStore(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'proxy-watchdog-'));
    const logFile = join(dir, 'proxy.log'); // in the writer's environment: finds it
    try {
      const env = {
        ...process.env,
        NODE_OPTIONS: `--import ${HANG}`,
        SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100',
        SUBAGENT_CONTEXT_PROXY_BACKGROUND_MS: '300',
        SUBAGENT_CONTEXT_PROXY_LOG: logFile,
      };
      const run = await runCliBinary(['proxy', ...store.args, '--', process.execPath, '-e', 'setTimeout(() => process.exit(4), 500)'], 30_000, { env });
      expect(run.code, run.stderr).toBe(4);
      // The log line is the watchdog's alone: the writer was still there, stuck, past its cap.
      expect(await goneWithin(logFile, 15_000)).toEqual([]);
      expect(readFileSync(logFile, 'utf8')).toMatch(
        /: the writer was still running 5300 ms after it was left to finish, past its time cap: killed; what it had not committed rolls back\n$/,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
