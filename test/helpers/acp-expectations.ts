// What the rows must be after the traffic of each scenario (test/agents/scenarios.ts): shared
// by the fixture replay in `npm test` (test/acp-recorded.test.ts) and the real agents in
// `npm run test:agents` (test/agents/real-agents.test.ts), so both prove the same thing.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { DURATION, identity, idsOf, settled } from './acp-expectations-shared.js';

const AGENT_ID = expect.stringMatching(/^a[0-9a-f]{16}$/);
const CLAUDE_CHILD = expect.stringMatching(/^a[0-9a-f]{16}$/);
const OPENCODE_CHILD = expect.stringMatching(/^ses_\w+$/);

/**
 * Claude's toolResponse of a foreground subagent: usage as measured (the scripted API reports 150
 * tokens a response). `tool_use_count` is Claude's `totalToolUseCount`: on 2.1.335 the subagent's
 * closing `SubagentHandback` is not counted (2.1.318 counted it: one more).
 */
function claudeForeground(tool_call_id: string, description: string, tool_use_count: number, parent_tool_call_id: string | null = null) {
  return {
    ...identity,
    ...settled,
    tool_call_id,
    parent_tool_call_id,
    description,
    subagent_type: 'general-purpose',
    agent_id: AGENT_ID,
    child_session_id: null,
    model: 'claude-opus-5-5',
    agent_status: 'completed',
    is_async: false,
    total_tokens: 150,
    tool_use_count,
    duration_ms: DURATION,
    output_file: null, // a foreground subagent answers in the tool result
  };
}

/** Claude Code: three parallel reviewers, one background, one nested; the subagent's own Read is no row. */
export function expectClaudeFanout(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(5);
  const [reviewSecurity, reviewPerformance, reviewStyle, background, nested] = idsOf(rows, [
    'Review security',
    'Review performance',
    'Review style',
    'Background audit',
    'Nested check',
  ]);
  // Each subagent ends with SubagentHandback, which 2.1.335 does not count.
  expect(rows.get(reviewSecurity)).toMatchObject(claudeForeground(reviewSecurity, 'Review security', 1)); // its Read counted, not recorded
  expect(rows.get(reviewPerformance)).toMatchObject(claudeForeground(reviewPerformance, 'Review performance', 0)); // a reported zero (AC-8)
  expect(rows.get(reviewStyle)).toMatchObject(claudeForeground(reviewStyle, 'Review style', 1)); // its nested Agent call
  expect(rows.get(nested)).toMatchObject(claudeForeground(nested, 'Nested check', 0, reviewStyle)); // a reported zero
  // Background: async_launched, no usage on the ACP stream (the child's usage never reaches it).
  expect(rows.get(background)).toMatchObject({
    ...identity,
    ...settled,
    description: 'Background audit',
    subagent_type: 'general-purpose',
    agent_id: AGENT_ID,
    model: 'claude-opus-5-5',
    agent_status: 'async_launched',
    is_async: true,
    total_tokens: null,
    tool_use_count: null,
    duration_ms: null,
    output_file: expect.stringMatching(/\/tasks\/a[0-9a-f]{16}\.output$/), // toolResponse.outputFile: where the child writes
  });
  for (const row of rows.values()) expect(row.duration_ms === null || (row.duration_ms as number) > 0).toBe(true);
}

/**
 * Claude Code, one launch the server-side auto-mode check refuses and one it allows: the refused
 * launch is a settled `failed` row whose agent_status is Claude's `nonExecutionKind`, verbatim;
 * no subagent ran, so no agent id, model or usage.
 */
export function expectClaudeRefused(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(2);
  const [refused, allowed] = idsOf(rows, ['Refused review', 'Allowed review']);
  expect(rows.get(refused)).toMatchObject({
    ...identity,
    ...settled,
    tool_call_id: refused,
    parent_tool_call_id: null,
    description: 'Refused review',
    subagent_type: 'general-purpose',
    tool_status: 'failed',
    agent_status: 'automode-blocked',
    agent_id: null,
    child_session_id: null,
    model: null,
    is_async: false,
    total_tokens: null,
    tool_use_count: null,
    duration_ms: null,
  });
  expect(rows.get(allowed)).toMatchObject(claudeForeground(allowed, 'Allowed review', 0));
}

/** Claude Code with the subagents capability: each subagent_update child is a row keyed by its child session, idle settles it. */
export function expectClaudeCapability(byId: Map<string, SubagentContextRow>): void {
  const rows = [...byId.values()];
  expect(rows.map((r) => r.description).sort()).toEqual(['Background audit', 'Nested check', 'Review performance', 'Review security', 'Review style']);
  for (const row of rows) {
    expect(row).toMatchObject({ ...identity, ...settled, tool_call_id: CLAUDE_CHILD, subagent_type: 'general-purpose', agent_status: 'idle' });
    expect(row.child_session_id).toBe(row.tool_call_id);
    // What the capability does not carry: no usage, no agent id, no model.
    expect(row).toMatchObject({ total_tokens: null, tool_use_count: null, duration_ms: null, agent_id: null, model: null });
  }
  const style = rows.find((r) => r.description === 'Review style')!;
  const nested = rows.find((r) => r.description === 'Nested check')!;
  expect(nested.parent_tool_call_id).toBe(style.child_session_id); // announced on the style reviewer's own session
  expect(rows.filter((r) => r !== nested).every((r) => r.parent_tool_call_id === null)).toBe(true);
}

/** OpenCode: three parallel and one background; model providerID/modelID, the child session, no usage. */
export function expectOpencodeFanout(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(4);
  const ids = idsOf(rows, ['Review security', 'Review performance', 'Review style', 'Background audit']);
  const base = {
    ...identity,
    ...settled,
    subagent_type: 'general',
    model: 'scripted/claude-scripted',
    child_session_id: OPENCODE_CHILD,
    agent_id: null,
    agent_status: null,
  };
  const none = { total_tokens: null, tool_use_count: null, duration_ms: null };
  expect(rows.get(ids[0])).toMatchObject({ ...base, ...none, description: 'Review security', is_async: false });
  expect(rows.get(ids[1])).toMatchObject({ ...base, ...none, description: 'Review performance', is_async: false });
  expect(rows.get(ids[2])).toMatchObject({ ...base, ...none, description: 'Review style', is_async: false });
  expect(rows.get(ids[3])).toMatchObject({ ...base, ...none, description: 'Background audit', is_async: true }); // metadata.background
  expect(new Set([...rows.values()].map((r) => r.child_session_id)).size).toBe(4);
}

export { expectCodexCapability, expectCodexFanout, expectCodexMultiAgentV2 } from './acp-expectations-codex.js';
export { expectGeminiFanout, expectGeminiRefused } from './acp-expectations-gemini.js';
export { expectQwenFanout } from './acp-expectations-qwen.js';
