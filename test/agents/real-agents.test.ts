// The ACP intake against REAL agents, run offline: Claude Code (through claude-agent-acp),
// OpenCode, Codex (through codex-acp), Gemini CLI and Qwen Code, driven by @agentclientprotocol/sdk
// as the client against a scripted local model API (the Messages API; Codex: the Responses API;
// Gemini CLI: Gemini's own), inside a loopback-only network namespace (`npm run test:agents`). Every session/update
// goes, in arrival order, into a recorder over a real SQLite store AND a recorder over a real
// PostgreSQL store; the rows must be exactly what the recorded fixtures give (the same
// expectations as test/acp-recorded.test.ts and test/acp-codex.test.ts).
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder } from '../../src/acp/index.js';
import type { SubagentContextRow } from '../../src/types.js';
import { HOST } from '../helpers/acp-fixtures.js';
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
} from '../helpers/acp-expectations.js';
import { DIALECTS, openTestDb, type TestDb } from '../helpers/test-db.js';
import { missingPackages, PINNED_AGENTS, type AgentName } from './agents.js';
import { insideOfflineNamespace } from './netns.js';
import { runScenario, type ScenarioName } from './scenarios.js';
import { insertSession } from '../helpers/seed-host-rows.js';

let dbs: TestDb[] = [];
/** The ACP session of the last run (Codex names its children after it). */
let lastAcpSessionId = '';

beforeAll(() => {
  // Fail, never skip: CI must not go green without the agents, or online.
  if (!insideOfflineNamespace()) throw new Error('run through `npm run test:agents` (a loopback-only network namespace)');
  for (const name of Object.keys(PINNED_AGENTS) as AgentName[]) expect(missingPackages(name), `${name} installed`).toEqual([]);
});

beforeEach(async () => {
  dbs = await Promise.all(DIALECTS.map((d) => openTestDb(d, 'package')));
  for (const db of dbs) await insertSession(db, 's1', 'task-1');
});
afterEach(async () => {
  for (const db of dbs) await db.close();
});

/** Runs the scenario with every update recorded on both dialects; the rows per dialect. */
async function runRecorded(name: ScenarioName): Promise<Map<string, SubagentContextRow>[]> {
  let acpSessionId: string | undefined;
  const context = (id: string) => (id === acpSessionId ? HOST : undefined);
  const stores = dbs.map((db) => db.store());
  const recorders = stores.map((store) => createAcpRecorder(store, { context }));
  const pending: Promise<unknown>[] = [];
  const run = await runScenario(name, {
    onSession: (id) => (acpSessionId = id),
    // Not awaited, as an SDK handler would not be: the recorder keeps each session's order.
    onUpdate: (params) => void pending.push(...recorders.map((r) => r.sessionUpdate(params))),
  });
  await Promise.all(pending);
  expect(run.acpSessionId).toBe(acpSessionId);
  lastAcpSessionId = run.acpSessionId;
  for (const [i, store] of stores.entries()) {
    expect(store.counters(), DIALECTS[i]).toMatchObject({ failed: 0, skipped_no_identity: 0 });
    expect(recorders[i].counters().recorded).toBeGreaterThan(0);
    recorders[i].forget(run.acpSessionId);
  }
  const rows = await Promise.all(stores.map(async (s) => new Map((await s.listBySession('s1')).map((r) => [r.tool_call_id, r]))));
  // Same frames, same rows on both dialects, apart from id and the wall-clock instants.
  const comparable = (m: Map<string, SubagentContextRow>) =>
    [...m.values()]
      .map(({ id: _id, observed_at: _o, settled_at: _s, updated_at: _u, ...rest }) => rest)
      .sort((a, b) => a.tool_call_id.localeCompare(b.tool_call_id));
  expect(comparable(rows[1])).toEqual(comparable(rows[0]));
  return rows;
}

it('Claude Code: three parallel reviewers, one background launch, one nested launch', async () => {
  for (const rows of await runRecorded('claude-fanout')) expectClaudeFanout(rows);
});

it('Claude Code with the subagents capability advertised: subagent_update children are rows', async () => {
  for (const rows of await runRecorded('claude-subagents-capability')) expectClaudeCapability(rows);
});

it('Claude Code: a launch its server-side auto-mode check refuses is a failed row that keeps the refusal kind', async () => {
  for (const rows of await runRecorded('claude-refused')) expectClaudeRefused(rows);
});

it('OpenCode: three parallel reviewers and one background launch', async () => {
  for (const rows of await runRecorded('opencode-fanout')) expectOpencodeFanout(rows);
});

it('Codex: three parallel spawnAgent calls (multi_agent_v1), detached; the wait calls and commands are no rows', async () => {
  for (const rows of await runRecorded('codex-fanout')) expectCodexFanout(rows);
});

it('Codex with the subagents capability advertised: subagent_update children are rows', async () => {
  for (const rows of await runRecorded('codex-subagents-capability')) expectCodexCapability(rows, lastAcpSessionId);
});

it('Codex with multi_agent_v2: each Start subagent call is a row', async () => {
  for (const rows of await runRecorded('codex-multi-agent-v2')) expectCodexMultiAgentV2(rows);
});

it('Gemini CLI: three parallel launches, its investigator and twice its generalist (no nesting, no background: it has neither)', async () => {
  for (const rows of await runRecorded('gemini-fanout')) expectGeminiFanout(rows);
});

it('Gemini CLI in its default approval mode: the investigator runs, the generalist launches are refused by Gemini itself, each a failed row', async () => {
  for (const rows of await runRecorded('gemini-refused')) expectGeminiRefused(rows);
});

it('Qwen Code: three foreground reviewers, two nested, three background settled by their completion notice', async () => {
  for (const rows of await runRecorded('qwen-fanout')) expectQwenFanout(rows);
});
