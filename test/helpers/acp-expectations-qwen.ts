// What the rows must be after Qwen Code's scenarios (test/agents/scenarios.ts), as
// test/helpers/acp-expectations.ts says for every agent; re-exported from there.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { DURATION, identity, idsOf, settled } from './acp-expectations-shared.js';

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
    output_file: null,
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
      output_file: expect.stringMatching(new RegExp(`/agent-general-purpose-${id}\\.jsonl$`)), // the launch text's output_file line
    });
  }
  for (const row of rows.values()) expect(row.duration_ms === null || (row.duration_ms as number) > 0).toBe(true);
}
