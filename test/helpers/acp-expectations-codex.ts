// What the rows must be after Codex's scenarios (test/agents/scenarios.ts), as
// test/helpers/acp-expectations.ts says for every agent; re-exported from there.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { identity, settled } from './acp-expectations-shared.js';

const CODEX_THREAD = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CODEX_PROMPTS = ['READ-FIRST Review the change for security issues.', 'Review the change for performance.', 'Review the change for style.'];
/** What no Codex subagent item carries on the ACP stream: usage, a tool count, a duration. */
const CODEX_NONE = { total_tokens: null, tool_use_count: null, duration_ms: null };

/**
 * Codex (multi_agent_v1, no capability): the three parallel spawnAgent calls are the only rows
 * (not the `wait` calls, not the main agent's own command); each settles at launch, detached
 * (is_async), naming its child thread as child session and agent id, the model, and the child's
 * state at launch (`pendingInit`); no usage, no type, no description on the wire.
 */
export function expectCodexFanout(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(3);
  for (const row of rows.values()) {
    expect(row).toMatchObject({
      ...identity,
      ...settled,
      ...CODEX_NONE,
      tool_call_id: expect.stringMatching(/^call_fake\d{4}$/),
      parent_tool_call_id: null,
      subagent_type: null,
      description: null,
      model: 'gpt-scripted',
      agent_status: 'pendingInit',
      is_async: true,
    });
    expect(row.child_session_id).toMatch(CODEX_THREAD);
    expect(row.agent_id).toBe(row.child_session_id);
  }
  expect(new Set([...rows.values()].map((r) => r.child_session_id)).size).toBe(3);
}

/** Codex with multi_agent_v2: each `Start subagent <task name>` call is a row; the task path is its agent id. */
export function expectCodexMultiAgentV2(rows: Map<string, SubagentContextRow>): void {
  expect([...rows.values()].map((r) => r.description).sort()).toEqual(['review_performance', 'review_security', 'review_style']);
  for (const row of rows.values()) {
    expect(row).toMatchObject({
      ...identity,
      ...settled,
      ...CODEX_NONE,
      tool_call_id: expect.stringMatching(/^call_fake\d{4}$/),
      parent_tool_call_id: null,
      subagent_type: null,
      agent_id: `/root/${row.description}`,
      child_session_id: expect.stringMatching(CODEX_THREAD),
      model: null, // not on the wire in v2
      agent_status: null,
      is_async: true,
    });
  }
}

/**
 * Codex with the subagents capability: no spawnAgent call at all; each child is a subagent_update
 * child session `<root session>:subagent:<thread>`, `running` then `idle`. Codex puts the spawn's
 * prompt in the update's `description` (Claude's adapter puts its agent type there): a sentence,
 * not one identifier, so it is read as the prompt (which the store never keeps) and
 * subagent_type stays NULL.
 */
export function expectCodexCapability(byId: Map<string, SubagentContextRow>, acpSessionId: string): void {
  const rows = [...byId.values()];
  expect(rows).toHaveLength(CODEX_PROMPTS.length); // one row per spawn
  for (const row of rows) {
    expect(row).toMatchObject({
      ...identity,
      ...settled,
      ...CODEX_NONE,
      parent_tool_call_id: null,
      subagent_type: null,
      description: null,
      agent_status: 'idle',
      model: null,
      is_async: false,
    });
    expect(row.tool_call_id.startsWith(`${acpSessionId}:subagent:`)).toBe(true);
    expect(row.tool_call_id.slice(`${acpSessionId}:subagent:`.length)).toMatch(CODEX_THREAD);
    expect(row.child_session_id).toBe(row.tool_call_id);
  }
}
