// What every scenario's rows share: the host identity the tests give every known ACP session, a
// settled row, and how a test finds rows by description. Used by each agent's expectations
// (test/helpers/acp-expectations*.ts).
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';

export const DURATION = expect.any(Number);
export const identity = {
  task_session_id: 's1',
  task_id: 'task-1',
  turn_id: 'turn-1',
  agent_execution_id: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11',
  source: 'live',
};
export const settled = { tool_status: 'completed', settled_at: expect.any(String) };

/** The tool-call ids of the rows with these descriptions, in that order (each exactly once). */
export function idsOf(rows: Map<string, SubagentContextRow>, descriptions: string[]): string[] {
  return descriptions.map((d) => {
    const found = [...rows.values()].filter((r) => r.description === d);
    expect(found, d).toHaveLength(1);
    return found[0].tool_call_id;
  });
}
