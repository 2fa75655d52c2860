// Cursor and Auggie cannot be run here (Cursor's agent is not on npm; Auggie's model loop is a
// private API), so their frames are built by hand from the wire shapes measured on real runs
// (issue #18), end to end into a real store on both dialects.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder } from '../src/acp/index.js';
import { contextFor, recordInOrder } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'acp-session-1';
const at = (update: Record<string, unknown>) => ({ sessionId: ACP, update });
const text = (t: string) => [{ type: 'content', content: { type: 'text', text: t } }];

const CURSOR = [
  at({
    sessionUpdate: 'tool_call',
    toolCallId: 'call_c1',
    title: 'Task',
    kind: 'other',
    status: 'pending',
    rawInput: { _toolName: 'task', description: 'Review security', prompt: 'Look for injection.', subagent_type: 'reviewer' },
  }),
  at({
    sessionUpdate: 'tool_call',
    toolCallId: 'call_c2',
    title: 'Read file',
    kind: 'read',
    status: 'pending',
    rawInput: { _toolName: 'read_file', path: '/a.ts' },
  }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'call_c1', status: 'in_progress' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'call_c2', status: 'completed', rawOutput: { content: 'x' } }),
  at({
    sessionUpdate: 'tool_call',
    toolCallId: 'call_c3',
    title: 'Task',
    kind: 'other',
    status: 'pending',
    rawInput: { _toolName: 'Task', description: 'Background sweep', prompt: 'Sweep.' },
  }),
  at({
    sessionUpdate: 'tool_call_update',
    toolCallId: 'call_c1',
    status: 'completed',
    rawOutput: { durationMs: 4200, isBackground: false },
    content: text('No findings.'),
  }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'call_c3', status: 'completed', rawOutput: { durationMs: 15, isBackground: true } }),
];

const AUGGIE = [
  at({ sessionUpdate: 'tool_call', toolCallId: 'aug-1', title: 'sub-agent-reviewer: Review security', kind: 'other', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'aug-2', title: 'view: src/a.ts', kind: 'read', status: 'pending' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'aug-1', status: 'in_progress' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'aug-2', status: 'completed' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'aug-1', status: 'completed', rawOutput: { output: 'No findings.' } }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'aug-3', title: 'sub-agent-explorer: Map the module graph', kind: 'other', status: 'failed' }),
];

describeBothDialects('ACP intake: Cursor and Auggie (hand-built from measured shapes)', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const record = (updates: { sessionId: string; update: object }[]) => recordInOrder(db, ACP, updates);

  it('Cursor: rawInput._toolName "task" is a subagent; rawOutput.durationMs and isBackground reach the row; read_file does not', async () => {
    const { outcomes, rows } = await record(CURSOR);
    expect(outcomes).toEqual(['persisted', undefined, 'persisted', undefined, 'persisted', 'persisted', 'persisted']);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['call_c1', 'call_c3']);
    expect(rows[0]).toMatchObject({
      description: 'Review security',
      subagent_type: 'reviewer',
      duration_ms: 4200,
      is_async: false,
      tool_status: 'completed',
      settled_at: expect.any(String),
    });
    expect(rows[1]).toMatchObject({ description: 'Background sweep', subagent_type: null, duration_ms: 15, is_async: true, tool_status: 'completed' });
    expect(rows.every((r) => r.total_tokens === null && r.model === null)).toBe(true);
  });

  it("Cursor's cursor/task request joins its model and agent id to the Task call, before or after the call; other requests are nothing", async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: contextFor(ACP) });
    const [first, , third] = CURSOR;
    expect(await recorder.sessionUpdate(first)).toBe('persisted');
    // After its call: a status-less frame that fills the row.
    expect(
      await recorder.agentRequest('cursor/task', { toolCallId: 'call_c1', agentId: 'agent-7f3', model: 'claude-sonnet-4.5', description: 'Review security' }),
    ).toBe('persisted');
    // Before its call: held, then joined when the Task call is recognized.
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_c3', agentId: 'agent-9b1', model: 'gpt-5-codex' })).toBeUndefined();
    expect(await recorder.sessionUpdate(CURSOR[4])).toBe('persisted');
    // Not Cursor's, or not readable: nothing, never a rejection.
    expect(await recorder.agentRequest('session/request_permission', { sessionId: ACP, toolCall: { toolCallId: 'call_c1' } })).toBeUndefined();
    expect(await recorder.agentRequest('cursor/task', { agentId: 'no-call' })).toBeUndefined();
    expect(await recorder.agentRequest('cursor/task', null as unknown as object)).toBeUndefined();
    expect(await recorder.sessionUpdate(third)).toBe('persisted');
    expect(await recorder.sessionUpdate(CURSOR[5])).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.model, r.agent_id, r.tool_status])).toEqual([
      ['call_c1', 'claude-sonnet-4.5', 'agent-7f3', 'completed'],
      ['call_c3', 'gpt-5-codex', 'agent-9b1', 'pending'],
    ]);
    expect(recorder.counters()).toMatchObject({ requests: 5, recorded: 5 });
  });

  it('Auggie: the title sub-agent-<type>: <description> is a subagent; other tools are not; statuses verbatim', async () => {
    const { outcomes, rows } = await record(AUGGIE);
    expect(outcomes).toEqual(['persisted', undefined, 'persisted', undefined, 'persisted', 'persisted']);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['aug-1', 'aug-3']);
    expect(rows[0]).toMatchObject({ subagent_type: 'reviewer', description: 'Review security', tool_status: 'completed', settled_at: expect.any(String) });
    expect(rows[1]).toMatchObject({ subagent_type: 'explorer', description: 'Map the module graph', tool_status: 'failed', settled_at: expect.any(String) });
  });
});
