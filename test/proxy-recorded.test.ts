// Real agents' ACP traffic through the proxy, in `npm test`: the fake agent replays what Claude
// Code, OpenCode, Codex, Gemini CLI and Qwen Code sent in the intake's real runs (recordings/acp/*.jsonl), the proxy tees
// it into its own store, and the rows must be exactly what the intake's expectations say
// (test/helpers/acp-expectations.ts) — with the identity the proxy supplies: the ACP session,
// the session's cwd as task, one turn for the prompt, one execution for the run.
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  expectClaudeCapability,
  expectClaudeFanout,
  expectClaudeRefused,
  expectCodexCapability,
  expectCodexFanout,
  expectCodexMultiAgentV2,
  expectGeminiFanout,
  expectGeminiRefused,
  expectOpencodeFanout,
  expectQwenFanout,
} from './helpers/acp-expectations.js';
import { acpSessionOf, type AcpFixtureName } from './helpers/acp-fixtures.js';
import { assertBuilt } from './helpers/cli.js';
import { openProxyStore, proxiedAgent, type ProxyStore } from './helpers/proxy-store.js';
import { proxiedRows } from './helpers/proxy-rows.js';
import { expectedQwenLedger, figuresOf, readLedger } from './helpers/qwen-ledger.js';
import { describeBothDialects } from './helpers/test-db.js';
import type { SubagentContextRow } from '../src/types.js';

beforeAll(assertBuilt);

const CWD = '/work/recorded-project';
const EXPECT: Record<AcpFixtureName, (rows: Map<string, SubagentContextRow>) => void> = {
  'claude-fanout': expectClaudeFanout,
  'claude-subagents-capability': expectClaudeCapability,
  'claude-refused': expectClaudeRefused,
  'opencode-fanout': expectOpencodeFanout,
  'codex-fanout': expectCodexFanout,
  'codex-subagents-capability': (rows) => expectCodexCapability(rows, acpSessionOf('codex-subagents-capability')),
  'codex-multi-agent-v2': expectCodexMultiAgentV2,
  'gemini-fanout': expectGeminiFanout,
  'gemini-refused': expectGeminiRefused,
  'qwen-fanout': expectQwenFanout,
};

describeBothDialects('proxy: recorded real-agent traffic', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  for (const name of Object.keys(EXPECT) as AcpFixtureName[]) {
    it(`${name}: the rows the intake expects, under the proxy's identity; health and report`, async () => {
      const client = proxiedAgent(store.args, { FAKE_AGENT_REPLAY: resolve(join('recordings', 'acp', `${name}.jsonl`)) });
      await client.request('initialize', { protocolVersion: 1 });
      const created = await client.request('session/new', { cwd: CWD, mcpServers: [] });
      const acpSessionId = (created.result as { sessionId: string }).sessionId;
      expect(acpSessionId).toBe(acpSessionOf(name));
      await client.request('session/prompt', { sessionId: acpSessionId, prompt: [{ type: 'text', text: 'replay' }] });
      const end = await client.end();
      expect(end.code, end.stderr).toBe(0);
      expect(end.stderr.split('\n').filter(Boolean)).toHaveLength(1); // the store's line; nothing lost, no WARN

      const rows = await proxiedRows(store, acpSessionId, CWD);
      EXPECT[name](rows);
      // The usage ledger: Qwen Code's summed totals per subagent, under the rows' own key; no other agent's wire has any.
      const ledger = await readLedger(store);
      expect(figuresOf(ledger)).toEqual(name === 'qwen-fanout' ? expectedQwenLedger() : []);
      const [{ agent_execution_id }] = await store.store().listBySession(acpSessionId);
      for (const row of ledger) expect(row).toMatchObject({ task_session_id: acpSessionId, agent_execution_id });
      expect(await store.store().checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
      const report = await store.store().report();
      expect(report.fan_out.known).toEqual([{ subagents: rows.size, turns: 1 }]);
    });
  }
});
