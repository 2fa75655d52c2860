// What the rows must be after the traffic of each scenario (test/agents/scenarios.ts): shared
// by the fixture replay in `npm test` (test/acp-recorded.test.ts) and the real agents in
// `npm run test:agents` (test/agents/real-agents.test.ts), so both prove the same thing.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';

const AGENT_ID = expect.stringMatching(/^a[0-9a-f]{16}$/);
const CLAUDE_CHILD = expect.stringMatching(/^a[0-9a-f]{16}$/);
const OPENCODE_CHILD = expect.stringMatching(/^ses_\w+$/);
const DURATION = expect.any(Number);
const identity = { task_session_id: 's1', task_id: 'task-1', turn_id: 'turn-1', agent_execution_id: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11', source: 'live' };
const settled = { tool_status: 'completed', settled_at: expect.any(String) };

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
  };
}

/** The tool-call ids of the rows with these descriptions, in that order (each exactly once). */
function idsOf(rows: Map<string, SubagentContextRow>, descriptions: string[]): string[] {
  return descriptions.map((d) => {
    const found = [...rows.values()].filter((r) => r.description === d);
    expect(found, d).toHaveLength(1);
    return found[0].tool_call_id;
  });
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

const GEMINI_CALL = expect.stringMatching(/^invoke_agent__invoke_agent_\d+_\d+$/);
/** What no Gemini row has: the wire carries the type (the quoted name) and the status only. */
const geminiNone = {
  ...identity,
  tool_call_id: GEMINI_CALL,
  parent_tool_call_id: null,
  description: null,
  agent_id: null,
  child_session_id: null,
  model: null,
  agent_status: null,
  is_async: false,
  total_tokens: null,
  tool_use_count: null,
  duration_ms: null,
};

/** The rows in launch order (Gemini numbers its calls `…_<n>` in the order the model made them). */
function inLaunchOrder(rows: Map<string, SubagentContextRow>): SubagentContextRow[] {
  const n = (r: SubagentContextRow) => Number(r.tool_call_id.slice(r.tool_call_id.lastIndexOf('_') + 1));
  return [...rows.values()].sort((a, b) => n(a) - n(b));
}

/**
 * Gemini CLI: three parallel `invoke_agent` launches, the first of its read-only
 * `codebase_investigator`, two of its `generalist`, all run; the main agent's own `read_file` is
 * no row. No description or prompt, no usage, no model, no agent id or child session.
 */
export function expectGeminiFanout(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(3);
  const types = ['codebase_investigator', 'generalist', 'generalist'];
  inLaunchOrder(rows).forEach((row, i) => expect(row).toMatchObject({ ...geminiNone, ...settled, subagent_type: types[i] }));
}

/**
 * Gemini CLI in its default approval mode: the read-only investigator runs (its policy allows it);
 * the two generalist launches are refused by Gemini itself, each one untitled failed frame: a
 * failed row with no type (the frame names only the agent's display name, in its reason).
 */
export function expectGeminiRefused(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(3);
  const [investigator, ...refused] = inLaunchOrder(rows);
  expect(investigator).toMatchObject({ ...geminiNone, ...settled, subagent_type: 'codebase_investigator' });
  for (const row of refused) expect(row).toMatchObject({ ...geminiNone, tool_status: 'failed', settled_at: expect.any(String), subagent_type: null });
}

/**
 * Qwen Code: three foreground reviewers (one reads a file, two launch a nested subagent each)
 * and three background launches. Tokens are the subagent's own rounds SUMMED (the scripted API
 * reports 150 a response: a reviewer that used a tool made two rounds, 300). The background
 * launches are settled by their completion notice, carry no usage, and their agent id is
 * Qwen's task id. No model on the wire. The subagents' own read_file call is no row, and so is
 * the nested launch of the background "Background docs": Qwen forwards no tool call of a
 * background subagent to the ACP stream.
 */
export function expectQwenFanout(rows: Map<string, SubagentContextRow>): void {
  expect(rows.size).toBe(8);
  const [security, performance, style, audit, licenses, docs] = idsOf(rows, [
    'Review security',
    'Review performance',
    'Review style',
    'Background audit',
    'Background licenses',
    'Background docs',
  ]);
  const base = { ...identity, ...settled, subagent_type: 'general-purpose', child_session_id: null, model: null, agent_status: 'completed' };
  const foreground = (description: string, total_tokens: number, tool_use_count: number, parent_tool_call_id: string | null = null) => ({
    ...base,
    description,
    parent_tool_call_id,
    agent_id: null,
    is_async: false,
    total_tokens,
    tool_use_count,
    duration_ms: DURATION,
  });
  expect(rows.get(security)).toMatchObject(foreground('Review security', 300, 1)); // its read_file: counted, not a row
  expect(rows.get(performance)).toMatchObject(foreground('Review performance', 300, 1)); // its nested agent call
  expect(rows.get(style)).toMatchObject(foreground('Review style', 300, 1));
  const nested = [...rows.values()].filter((r) => r.description === 'Nested check');
  expect(nested.map((r) => r.parent_tool_call_id).sort()).toEqual([performance, style].sort());
  for (const row of nested) expect(row).toMatchObject(foreground('Nested check', 150, 0, row.parent_tool_call_id)); // a reported zero (AC-8)
  for (const [id, description] of [
    [audit, 'Background audit'], // took Qwen's default: the input named no flag
    [licenses, 'Background licenses'],
    [docs, 'Background docs'],
  ]) {
    expect(rows.get(id)).toMatchObject({
      ...base,
      description,
      parent_tool_call_id: null,
      agent_id: `general-purpose-${id}`,
      is_async: true,
      total_tokens: null,
      tool_use_count: null,
      duration_ms: null,
    });
  }
  for (const row of rows.values()) expect(row.duration_ms === null || (row.duration_ms as number) > 0).toBe(true);
}
