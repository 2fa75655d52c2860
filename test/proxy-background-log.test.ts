// The background writer's log counts only what the proxy's summary did not (review of
// 2026-12-05): a write that failed before the proxy left is in the summary's `writes failed`,
// and the log, written when the writer finishes alone, used to count it again ("2 writes failed"
// in both lines for 2 failures). The summary and the log add up to every write and every
// failure once. Both dialects: a trigger refuses one call; then slow inserts keep the writer
// busy (and still reading its channel) until the proxy has left it to finish in the background.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { failWritesOf } from './helpers/live-db.js';
import { assertBuilt } from './helpers/cli.js';
import { catProxy, openProxyStore, PROXY_TEST_ENV, subagentLaunchLine } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const line = (i: number) => subagentLaunchLine('acp-background', `toolu_bg_${i}`);
const LINES = 1_000;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeBothDialects('proxy: the background log after failures the summary counted', (dialect) => {
  it('a failure before the proxy leaves is counted once: in the summary, not again in the log', async () => {
    const store = await openProxyStore(dialect, { hostAndPackage: true });
    const dir = mkdtempSync(join(tmpdir(), 'proxy-background-log-'));
    const logFile = join(dir, 'proxy.log');
    try {
      await failWritesOf(store, 'toolu_bg_1');
      const env = { ...process.env, ...PROXY_TEST_ENV, SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '100', SUBAGENT_CONTEXT_PROXY_LOG: logFile };
      const run = catProxy(store.args, env);
      const proxy = run.process;
      proxy.stdin.write(line(0) + line(1) + line(2)); // line 1 is refused
      const end = Date.now() + 30_000;
      while ((await store.query("SELECT 1 FROM task_session_subagents WHERE tool_call_id = 'toolu_bg_2'")).length === 0) {
        if (Date.now() > end) throw new Error(`line 2 never came: ${run.stderr()}`);
        await delay(20);
      }
      await delay(200); // the batch's 'done', sent right after its commit, reaches the proxy
      await store.exec(
        byDialect(dialect, {
          sqlite: `CREATE TRIGGER slow_insert BEFORE INSERT ON task_session_subagents
                   WHEN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1500) SELECT count(*) FROM c) < 0
                   BEGIN SELECT 1; END`,
          postgres: `CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$;
                     CREATE TRIGGER slow_insert BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION slow_insert()`,
        }),
      );
      for (let i = 3; i < LINES; i++) proxy.stdin.write(line(i));
      while (run.echoed() < LINES) await delay(10);
      proxy.stdin.end();
      expect(await run.closed).toBe(0);
      const stderr = run.stderr();
      const summary = /subagent-context proxy: \d+ writes recorded; (\d+) lines left to the writer, .*?, (\d+) writes failed\n/.exec(stderr);
      expect(summary, stderr).not.toBeNull();
      expect(Number(summary![2])).toBeGreaterThan(0);
      const until = Date.now() + 60_000;
      while (!(existsSync(logFile) && readFileSync(logFile, 'utf8').includes('finished in the background'))) {
        if (Date.now() > until) throw new Error('the background writer never logged');
        await delay(50);
      }
      const log = readFileSync(logFile, 'utf8');
      expect(log, stderr).toMatch(/finished in the background: \d+ writes recorded\n$/); // no failure after the proxy left
      expect(log).not.toContain('writes failed');
      const rows = await store.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM task_session_subagents');
      expect(Number(rows[0].n)).toBe(LINES - 1); // every line but the refused one
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
