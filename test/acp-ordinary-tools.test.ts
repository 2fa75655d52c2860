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
});
