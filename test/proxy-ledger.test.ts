// The usage ledger behind the proxy (issue 33): Qwen Code's recorded traffic through the built
// proxy into a host's existing store whose ledger table refuses every live row (a real
// trigger). The subagent rows are all written, in the same transactions; each lost ledger row
// is WARNed and counted in the proxy's summary line, never as a failed write.
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { expectQwenFanout } from './helpers/acp-expectations.js';
import { acpSessionOf } from './helpers/acp-fixtures.js';
import { byDialect } from './helpers/by-dialect.js';
import { assertBuilt } from './helpers/cli.js';
import { openProxyStore, proxiedAgent, type ProxyStore } from './helpers/proxy-store.js';
import { proxiedRows } from './helpers/proxy-rows.js';
import { qwenSummaries, readLedger } from './helpers/qwen-ledger.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

const CWD = '/work/recorded-project';

describeBothDialects('proxy: the usage ledger', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect, { hostAndPackage: true });
  });
  afterEach(async () => store.close());

  it('a ledger the database refuses: every subagent row written, each lost ledger row WARNed and counted apart from the writes', async () => {
    await store.exec(
      byDialect(dialect, {
        sqlite: `CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage BEGIN SELECT RAISE(ABORT, 'injected'); END`,
        postgres: `CREATE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'injected'; END $f$;
          CREATE TRIGGER inject_failure BEFORE INSERT ON task_session_subagent_usage FOR EACH ROW EXECUTE FUNCTION inject_failure();`,
      }),
    );
    const client = proxiedAgent(store.args, { FAKE_AGENT_REPLAY: resolve(join('recordings', 'acp', 'qwen-fanout.jsonl')) });
    await client.request('initialize', { protocolVersion: 1 });
    const created = await client.request('session/new', { cwd: CWD, mcpServers: [] });
    const acpSessionId = (created.result as { sessionId: string }).sessionId;
    expect(acpSessionId).toBe(acpSessionOf('qwen-fanout'));
    await client.request('session/prompt', { sessionId: acpSessionId, prompt: [{ type: 'text', text: 'replay' }] });
    const end = await client.end();
    expect(end.code, end.stderr).toBe(0);
    const lost = qwenSummaries().size;
    expect(end.stderr).toMatch(/subagent-context proxy: WARN subagent usage ledger write failed; the subagent row is written .*injected/);
    expect(end.stderr).toMatch(
      new RegExp(`subagent-context proxy: \\d+ writes recorded; ${lost} usage-ledger rows not written \\(their subagent rows are\\)\\n`),
    );
    expect(end.stderr).not.toMatch(/writes failed/);
    expectQwenFanout(await proxiedRows(store, acpSessionId, CWD));
    expect(await readLedger(store)).toEqual([]);
    expect(await store.store().checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });
});
