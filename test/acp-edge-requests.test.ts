// Orders and ambiguities the recordings never show, outside child sessions: each found by a
// review that mutated the recordings (2026-12-05), each a wrong or lost row, or state left
// behind, before its fix: a cursor/task request that names no session while two sessions have a
// call of its id, held requests and the calls they are for, a shell command titled like an
// Auggie subagent, and a Qwen Code completion notice that overtakes its launch's own end. Both
// dialects, through the recorder into a real store; the recognizer's state where the defect was
// state left behind. (Child sessions: test/acp-edge-orders.test.ts.)
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, createSubagentRecognizer, type AcpHostContext } from '../src/acp/index.js';
import { HOST, recordInOrder } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'parent-session';
const on = (sessionId: string, update: Record<string, unknown>) => ({ sessionId, update });
const at = (update: Record<string, unknown>) => on(ACP, update);
const sessionContent = (sessionId: string) => [{ type: 'session', sessionId }];
const cursorTask = (sessionId: string, toolCallId: string) =>
  on(sessionId, {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'Task',
    kind: 'other',
    status: 'pending',
    rawInput: { _toolName: 'task', description: 'Review' },
  });
const qwenCall = (toolCallId: string, extra: Record<string, unknown>) =>
  at({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { toolName: 'agent', provenance: 'builtin' } });
const qwenNotice = (toolUseId: string, status: string) =>
  at({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text: `Background agent "x" ${status}.` },
    _meta: { source: 'background_task_completed', backgroundTask: { taskId: `general-purpose-${toolUseId}`, status, kind: 'agent', toolUseId } },
  });
/** A Qwen Code background launch as 0.24.4 sends it: its input, then its own end (status-less for the subagent). */
const QWEN_LAUNCH = [
  qwenCall('q1', { status: 'in_progress', rawInput: { description: 'Audit', prompt: 'Audit the module.', subagent_type: 'general-purpose' } }),
  qwenCall('q1', {
    status: 'completed',
    rawOutput: { type: 'task_execution', subagentName: 'general-purpose', executionMode: 'background', status: 'background' },
  }),
];

describeBothDialects('ACP intake: requests, shapes and notices in orders the recordings never show', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('cursor/task without a session joins only a call no other session shares; with its session, that session only', async () => {
    await insertSession(db, 's2', 'task-2');
    const hosts: Record<string, AcpHostContext> = { 'acp-1': HOST, 'acp-2': { ...HOST, sessionId: 's2', taskId: 'task-2' } };
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: (id) => hosts[id] });
    for (const u of [cursorTask('acp-1', 'call_1'), cursorTask('acp-2', 'call_1'), cursorTask('acp-2', 'call_2')])
      expect(await recorder.sessionUpdate(u)).toBe('persisted');
    // call_1 is a Task call on both sessions: which one the request means is unknown, so neither row gets it.
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_1', agentId: 'agent-a', model: 'model-a' })).toBeUndefined();
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_1', agentId: 'agent-b', model: 'model-b', sessionId: 'acp-2' })).toBe('persisted');
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_2', agentId: 'agent-c', model: 'model-c' })).toBe('persisted');
    const row = async (session: string, id: string) => (await store.listBySession(session)).find((r) => r.tool_call_id === id);
    expect(await row('s1', 'call_1')).toMatchObject({ model: null, agent_id: null });
    expect(await row('s2', 'call_1')).toMatchObject({ model: 'model-b', agent_id: 'agent-b' });
    expect(await row('s2', 'call_2')).toMatchObject({ model: 'model-c', agent_id: 'agent-c' });
  });

  it("a held cursor/task request is joined only by Cursor's Task call, also when it named a child session not yet announced", async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: (id) => (id === ACP ? HOST : undefined) });
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_1', agentId: 'agent-1', model: 'model-1' })).toBeUndefined();
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_2', agentId: 'agent-2', model: 'model-2', sessionId: 'child-1' })).toBeUndefined();
    // An OpenCode `task` call of the same id is not the Task call the request meant.
    expect(await recorder.sessionUpdate(at({ sessionUpdate: 'tool_call', toolCallId: 'call_1', title: 'task', kind: 'think', status: 'pending' }))).toBe(
      'persisted',
    );
    expect(
      await recorder.sessionUpdate(
        at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Helper', description: 'helper', state: { state: 'running' } }),
      ),
    ).toBe('persisted');
    expect(await recorder.sessionUpdate(cursorTask('child-1', 'call_2'))).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.model, r.agent_id]).sort()).toEqual([
      ['call_1', null, null],
      ['child-1', null, null],
      ['child-1/call_2', 'model-2', 'agent-2'], // a call of the child's session, qualified by it
    ]);
  });

  it("a cursor/task request finds a Task call that joined an announced child's row", async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: (id) => (id === ACP ? HOST : undefined) });
    expect(await recorder.sessionUpdate(at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Helper', state: { state: 'running' } }))).toBe(
      'persisted',
    );
    const task = cursorTask(ACP, 'call_1');
    (task.update as { content?: unknown }).content = sessionContent('child-1');
    expect(await recorder.sessionUpdate(task)).toBe('persisted');
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_1', agentId: 'agent-1', model: 'model-1' })).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.model, r.agent_id])).toEqual([['child-1', 'model-1', 'agent-1']]);
  });

  it('a cursor/task request held for a call not seen yet goes with its session: forget drops it', async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: (id) => (id === ACP ? HOST : undefined) });
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_9', agentId: 'agent-9', model: 'model-9', sessionId: ACP })).toBeUndefined();
    expect(await recorder.agentRequest('cursor/task', { toolCallId: 'call_8', agentId: 'agent-8', model: 'model-8', sessionId: ACP })).toBeUndefined();
    expect(await recorder.sessionUpdate(cursorTask(ACP, 'call_8'))).toBe('persisted'); // held, then joined
    recorder.forget(ACP); // the session ended
    expect(await recorder.sessionUpdate(cursorTask(ACP, 'call_9'))).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.model, r.agent_id])).toEqual([
      ['call_8', 'model-8', 'agent-8'],
      ['call_9', null, null],
    ]);
  });

  it('a shell command or a read titled like an Auggie subagent is no row; the subagent call still is', async () => {
    const { rows, counters } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'sh-1', title: 'sub-agent-build: make all', kind: 'execute', status: 'pending' }),
      // A later update repeats the title without the kind: still the shell command.
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'sh-1', title: 'sub-agent-build: make all', status: 'completed', rawOutput: { output: 'ok' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'rd-1', title: 'sub-agent-notes: todo.md', kind: 'read', status: 'completed' }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'aug-1', title: 'sub-agent-reviewer: Review security', kind: 'other', status: 'completed' }),
      // A tool_call that names no kind has the schema's default, `other`.
      at({ sessionUpdate: 'tool_call', toolCallId: 'aug-2', title: 'sub-agent-explorer: Map it', status: 'completed' }),
    ]);
    expect(rows.map((r) => [r.tool_call_id, r.subagent_type])).toEqual([
      ['aug-1', 'reviewer'],
      ['aug-2', 'explorer'],
    ]);
    expect(counters.unrecognized_delegations).toBe(0); // an ordinary kind is never a lookalike either
  });

  it("a Qwen Code completion notice before its launch's own end: the row settles as the notice says, and no state is left", async () => {
    const [input, launchEnd] = QWEN_LAUNCH;
    const { rows, outcomes } = await recordInOrder(db, ACP, [input, qwenNotice('q1', 'completed'), launchEnd]);
    expect(outcomes).toEqual(['persisted', 'persisted', 'persisted']);
    expect(rows).toHaveLength(1);
    // The late launch end says `background`: older news than the completion, so the agent status stays `completed`.
    expect(rows[0]).toMatchObject({
      tool_call_id: 'q1',
      tool_status: 'completed',
      agent_status: 'completed',
      is_async: true,
      subagent_type: 'general-purpose',
    });
    expect(rows[0].settled_at).not.toBeNull();

    const r = createSubagentRecognizer();
    for (const u of [input, qwenNotice('q1', 'completed'), launchEnd]) r.observe(u);
    expect(r.size()).toBe(0);
    // The usual order still ends with nothing kept.
    const usual = createSubagentRecognizer();
    for (const u of [...QWEN_LAUNCH, qwenNotice('q1', 'completed')]) usual.observe(u);
    expect(usual.size()).toBe(0);
  });
});
