// What the rows must be after Gemini CLI's scenarios (test/agents/scenarios.ts), as
// test/helpers/acp-expectations.ts says for every agent; re-exported from there.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { identity, settled } from './acp-expectations-shared.js';

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
