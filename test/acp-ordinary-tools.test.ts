// Ordinary tools never become subagent rows, whatever their titles say (review of 2026-12-05):
// OpenCode's completed frame carries its tool's result title, so a `grep` for "task" or a
// `read` of a file named `task` says `task` like a launch of its subagent tool does. Its own
// kind (search, read, execute: ACP's ordinary kinds) tells them apart. Both dialects, through
// the recorder into a real store.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { recordInOrder } from './helpers/acp-fixtures.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'opencode-session';
const at = (update: Record<string, unknown>) => ({ sessionId: ACP, update });

describeBothDialects('ACP: ordinary tools titled like a subagent tool', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('a grep for "task", a read of a file named task and a command named task write no row; a real task launch still does', async () => {
    const { rows, outcomes, counters } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'grep-1', title: 'grep', kind: 'search', status: 'pending', rawInput: {} }),
      at({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'grep-1',
        title: 'task',
        kind: 'search',
        status: 'completed',
        rawOutput: { output: 'Found 3 matches' },
      }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'read', kind: 'read', status: 'pending', rawInput: { filePath: 'task' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'read-1', title: 'task', kind: 'read', status: 'completed', rawOutput: { output: '1: hello' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'bash-1', title: 'task', kind: 'execute', status: 'pending', rawInput: { command: 'task' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'task-1', title: 'task', kind: 'think', status: 'pending', rawInput: {} }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'task-1', title: 'Review', kind: 'think', status: 'completed', rawInput: { description: 'Review' } }),
    ]);
    expect(outcomes).toEqual([undefined, undefined, undefined, undefined, undefined, 'persisted', 'persisted']);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['task-1']);
    expect(rows[0]).toMatchObject({ description: 'Review', tool_status: 'completed' });
    expect(counters.unrecognized_delegations).toBe(0);
  });

  // OpenCode 1.18.33's completed frames carry no kind at all (recordings/acp/opencode-fanout.jsonl):
  // the title alone then claimed an ordinary read of a file named `task` (review of the fifth pass).
  it('the same without a kind on the completed frames, as OpenCode 1.18.33 sends them: no row, nothing reported', async () => {
    const { rows, outcomes, counters } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'read-1', title: 'read', kind: 'read', status: 'pending', rawInput: { filePath: 'task' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'read-1', title: 'task', status: 'completed', rawOutput: { output: '1: hello' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'read-2', title: 'read', kind: 'read', status: 'pending', rawInput: { filePath: 'AGENTS.md' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'read-2', title: 'AGENTS.md', status: 'completed', rawOutput: { output: '# Agents' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'task-1', title: 'task', kind: 'think', status: 'pending', rawInput: {} }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'task-1', title: 'Review', status: 'completed', rawOutput: { output: 'done' } }),
    ]);
    expect(outcomes).toEqual([undefined, undefined, undefined, undefined, 'persisted', 'persisted']);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['task-1']);
    expect(rows[0]).toMatchObject({ tool_status: 'completed' });
    expect(counters.unrecognized_delegations).toBe(0);
  });

  it('an MCP tool whose server is named for agents is no delegation; one whose tool spawns an agent is reported', async () => {
    const claude = (toolCallId: string, toolName: string) =>
      at({ sessionUpdate: 'tool_call', toolCallId, title: toolName, kind: 'other', status: 'pending', rawInput: {}, _meta: { claudeCode: { toolName } } });
    const { rows, counters } = await recordInOrder(db, ACP, [
      claude('mcp-1', 'mcp__agent-browser__open'),
      claude('mcp-2', 'mcp__agent-browser__click'),
      claude('mcp-3', 'mcp__orchestrator__spawn_agent'),
    ]);
    expect(rows).toEqual([]);
    expect(counters.unrecognized_delegations).toBe(1);
  });
});
