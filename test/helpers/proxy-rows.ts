// The subagent rows the proxy wrote for one ACP session, checked for the identity the proxy
// gives them (the ACP session, its cwd as task, one turn, one execution — both UUIDs), then
// restated in the identity the shared ACP expectations use (test/helpers/acp-expectations.ts),
// so recorded traffic, real agents and the proxy are held to one set of row expectations.
import { expect } from 'vitest';
import type { SubagentContextRow } from '../../src/types.js';
import { HOST } from './acp-fixtures.js';
import type { ProxyStore } from './proxy-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function proxiedRows(store: ProxyStore, acpSessionId: string, cwd: string): Promise<Map<string, SubagentContextRow>> {
  const rows = await store.store().listBySession(acpSessionId);
  expect(rows.length).toBeGreaterThan(0);
  const [first] = rows;
  expect(first.turn_id).toMatch(UUID);
  expect(first.agent_execution_id).toMatch(UUID);
  for (const row of rows) {
    expect(row).toMatchObject({
      task_session_id: acpSessionId,
      task_id: cwd,
      turn_id: first.turn_id,
      agent_execution_id: first.agent_execution_id,
      source: 'live',
    });
  }
  return new Map(
    rows.map((r) => [
      r.tool_call_id,
      { ...r, task_session_id: HOST.sessionId, task_id: HOST.taskId, turn_id: HOST.turnId ?? null, agent_execution_id: HOST.executionId ?? '' },
    ]),
  );
}
