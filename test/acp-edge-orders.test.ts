// ACP child sessions in orders the recordings never show, each found by a review that mutated
// them (2026-12-05) and each a wrong or lost row before its fix: a child named again by a second
// call, before or after the first call ended, in either order of announcement, and a call id
// that comes back. Both dialects, through the recorder into a real store; the recognizer's state
// where the defect was state left behind. (Requests, shapes, notices: test/acp-edge-requests.test.ts.)
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { recordInOrder } from './helpers/acp-fixtures.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'parent-session';
const on = (sessionId: string, update: Record<string, unknown>) => ({ sessionId, update });
const at = (update: Record<string, unknown>) => on(ACP, update);
const sessionContent = (sessionId: string) => [{ type: 'session', sessionId }];

describeBothDialects('ACP intake: child sessions named again, in orders the recordings never show', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('a child named again by a second call after the first ended stays one row, and the child settles that row', async () => {
    const { rows, outcomes } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed' }),
      // Messaged again through a second call naming the same child: a reuse (idle → running → idle).
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Review again', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'cancelled' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed' }),
    ]);
    expect(outcomes.every((o) => o === 'persisted')).toBe(true);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['call-1']);
    // Settled at its first end (a settled row never reopens); the agent status follows the wire.
    expect(rows[0]).toMatchObject({ child_session_id: 'child-1', tool_status: 'completed', agent_status: 'idle' });
  });

  it('a second call naming a child while the first call runs is a row of its own; the child and the first call settle the first row', async () => {
    const { rows, outcomes } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review', kind: 'other', status: 'in_progress', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Message', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'error' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'failed', content: sessionContent('child-1') }),
    ]);
    expect(outcomes.every((o) => o === 'persisted')).toBe(true);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-1', 'call-2']);
    // The second call's end settles its own row, never the first: the child's error does.
    expect(byId.get('call-1')).toMatchObject({ tool_status: 'failed', agent_status: 'idle', description: 'Reviewer' });
    expect(byId.get('call-2')).toMatchObject({ tool_status: 'completed', child_session_id: 'child-1' });
  });

  it('a second call naming a child announced first and joined to a running call is a row of its own', async () => {
    const claude = (toolCallId: string, extra: Record<string, unknown>) =>
      at({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { claudeCode: { toolName: 'Agent' } } });
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      claude('call-1', { status: 'in_progress', content: sessionContent('child-1') }), // joins the child's row
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Message', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      claude('call-1', { rawInput: { description: 'Review', prompt: 'p', subagent_type: 'general-purpose' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'error' } }),
      claude('call-1', { status: 'failed' }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-2', 'child-1']);
    expect(byId.get('child-1')).toMatchObject({ tool_status: 'failed', subagent_type: 'general-purpose', agent_status: 'idle' });
    expect(byId.get('call-2')).toMatchObject({ tool_status: 'completed' });
  });

  it('a second call naming a child that a running call named after it was announced is a row of its own; the child settles its row', async () => {
    const claude = (toolCallId: string, extra: Record<string, unknown>) =>
      at({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { claudeCode: { toolName: 'Agent' } } });
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      claude('call-1', { status: 'in_progress', rawInput: { description: 'Review', prompt: 'p', subagent_type: 'general-purpose' } }),
      claude('call-1', { content: sessionContent('child-1') }), // recognised before it named the child: keeps its own row
      at({ sessionUpdate: 'tool_call', toolCallId: 'msg-2', title: 'Message', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'msg-2', status: 'completed', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'error' } }),
      claude('call-1', { status: 'failed' }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-1', 'child-1', 'msg-2']);
    expect(byId.get('child-1')).toMatchObject({ tool_status: 'failed', description: 'Reviewer', agent_status: 'idle' });
    expect(byId.get('msg-2')).toMatchObject({ tool_status: 'completed' });
  });

  it("a call that named a child announced before it holds the child's row while it runs: after the child's idle, and against a chain of calls", async () => {
    const claude = (toolCallId: string, extra: Record<string, unknown>) =>
      at({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { claudeCode: { toolName: 'Agent' } } });
    const message = (toolCallId: string, status: string) =>
      at({ sessionUpdate: 'tool_call', toolCallId, title: 'Message', kind: 'other', status, content: sessionContent('child-1') });
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      claude('call-1', { status: 'in_progress', rawInput: { description: 'Review', prompt: 'p', subagent_type: 'general-purpose' } }),
      claude('call-1', { content: sessionContent('child-1') }), // keeps its own row
      message('msg-2', 'pending'), // a row of its own
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'msg-2', status: 'completed' }),
      message('msg-3', 'pending'), // call-1 still runs: a row of its own too, not the child's
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'error' } }),
      message('msg-4', 'completed'), // after the child's idle: call-1 still runs
      claude('call-1', { status: 'failed' }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-1', 'child-1', 'msg-2', 'msg-3', 'msg-4']);
    expect(byId.get('child-1')).toMatchObject({ tool_status: 'failed', description: 'Reviewer', agent_status: 'idle' });
  });

  it('a tool_call under an id an ended call had joined to a reused row starts a row of its own', async () => {
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed' }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Again', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed' }), // a reuse: call-1's row
      // The id comes back for an unrelated launch.
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Task', kind: 'other', status: 'pending', _meta: { claudeCode: { toolName: 'Agent' } } }),
      at({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-2',
        status: 'in_progress',
        rawInput: { description: 'Other' },
        _meta: { claudeCode: { toolName: 'Agent' } },
      }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-1', 'call-2']);
    expect(byId.get('call-2')).toMatchObject({ description: 'Other', tool_status: 'in_progress', child_session_id: null });
  });

  it('a late frame of an ended call whose child a second call has since reused leaves the row to the second call', async () => {
    const { rows, outcomes } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-x', title: 'Review', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-x', status: 'completed' }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-y', title: 'Again', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-x', status: 'completed' }), // late, duplicated
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-y', status: 'completed' }), // lost before: the state was gone
    ]);
    expect(outcomes).toEqual(Array(8).fill('persisted'));
    expect(rows.map((r) => r.tool_call_id)).toEqual(['child-1']);
  });

  it('a call whose own fields named another session first still holds a child it names later', async () => {
    const opencode = (extra: Record<string, unknown>) => at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-x', ...extra });
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-x', title: 'task', kind: 'think', status: 'pending', rawInput: {} }),
      opencode({ status: 'in_progress', rawOutput: { metadata: { sessionId: 'ses-other' } } }),
      opencode({ content: sessionContent('child-1') }), // keeps its own row, holds the child's
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-y', title: 'Message', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-y', status: 'completed' }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-x', 'call-y', 'child-1']);
    expect(byId.get('child-1')).toMatchObject({ tool_status: 'in_progress', settled_at: null });
    expect(byId.get('call-x')).toMatchObject({ child_session_id: 'ses-other' });
  });

  it('after the first call ended, a second call naming the child writes its row, also once the child runs again; a late frame adds no join', async () => {
    const first = [
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed' }),
    ];
    const { rows } = await recordInOrder(db, ACP, [
      ...first,
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'running' } }), // before the second call this time
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Review again', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed' }),
    ]);
    expect(rows.map((r) => r.tool_call_id)).toEqual(['call-1']);
    expect(rows[0]).toMatchObject({ tool_status: 'completed', agent_status: 'idle' });

    const r = createSubagentRecognizer();
    for (const u of first) r.observe(u);
    const before = r.size();
    // A late frame of the ended call naming its own child: written, and no join of the row to itself.
    expect(r.observe(at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', content: sessionContent('child-1') }))).toMatchObject({
      toolCallId: 'call-1',
    });
    // +1 is the call's own state, made again by a late update (a known limit, docs/acp-intake.md); a self-join made it +2.
    expect(r.size()).toBe(before + 1);
  });

  it('a call recognised first and naming a child of an ended call later leaves the child on the first row', async () => {
    const claude = (toolCallId: string, extra: Record<string, unknown>) =>
      at({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { claudeCode: { toolName: 'Agent' } } });
    const { rows } = await recordInOrder(db, ACP, [
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Reviewer', description: 'reviewer', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', content: sessionContent('child-1') }),
      claude('call-2', { status: 'in_progress', rawInput: { description: 'Follow up', prompt: 'p', subagent_type: 'general-purpose' } }),
      claude('call-2', { content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'running' } }),
      claude('call-2', { status: 'completed' }),
    ]);
    const byId = new Map(rows.map((r) => [r.tool_call_id, r]));
    expect([...byId.keys()].sort()).toEqual(['call-1', 'call-2']);
    // The child's later state stays on its row; the second call's row has its own fields only.
    expect(byId.get('call-1')).toMatchObject({ agent_status: 'running', tool_status: 'completed' });
    expect(byId.get('call-2')).toMatchObject({ description: 'Follow up', agent_status: null, tool_status: 'completed' });
  });
});
