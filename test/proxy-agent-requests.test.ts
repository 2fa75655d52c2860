// The proxy taps agent → client requests as well as session/update: Cursor's `cursor/task`
// request brings the model and agent id its Task call lacks. And it is never blind in silence:
// a tool call that looks like a delegation of an agent it does not know is counted and said, on
// stderr (its summary and one WARN per title), while the relay is untouched. Replayed by the fake
// agent from test/fixtures/cursor-task-replay.jsonl (Cursor's shapes, built by hand: Cursor's
// agent is not on npm).
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { assertBuilt } from './helpers/cli.js';
import { openProxyStore, proxiedAgent, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

beforeAll(assertBuilt);

describeBothDialects('proxy: agent → client requests and unrecognized delegations', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it("cursor/task fills its Task call's model and agent id; an unknown agent's delegation is counted and said", async () => {
    const client = proxiedAgent(store.args, { FAKE_AGENT_REPLAY: resolve(join('test', 'fixtures', 'cursor-task-replay.jsonl')) });
    await client.request('initialize', { protocolVersion: 1 });
    const created = await client.request('session/new', { cwd: '/work/cursor-project', mcpServers: [] });
    const acpSessionId = (created.result as { sessionId: string }).sessionId;
    const answered = await client.request('session/prompt', { sessionId: acpSessionId, prompt: [{ type: 'text', text: 'replay' }] });
    expect(answered.result).toEqual({ stopReason: 'end_turn' });
    const end = await client.end();
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toMatch(/a tool call looks like a subagent launch but matches no known agent.*"Delegating to agent 'planner'"/);
    expect(end.stderr).toMatch(/1 tool calls looked like subagent launches of an agent this version does not recognise \(not recorded\)/);
    const rows = await store.store().listBySession(acpSessionId);
    expect(rows.map((r) => [r.tool_call_id, r.model, r.agent_id, r.is_async, r.tool_status])).toEqual([
      ['call_c1', 'claude-sonnet-4.5', 'agent-7f3', false, 'completed'],
      ['call_c2', 'gpt-5-codex', 'agent-9b1', true, 'completed'],
    ]);
  });
});
