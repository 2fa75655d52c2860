// ACP Subagent Sessions as Completed (2026-11-20), end to end into a real store on both
// dialects: the `session` tool-call content joins a tool call and its child into one row (in
// either order), subagent_update is a patch (null never blanks a stored column), every state
// (running, idle with each stop reason, requires_action, unknown, custom), a reused child, the
// child's title from session_info_update, and ACP v2's state on the child session's own updates.
// Frames are hand-built from the SDK's v1/v2 unstable schema (@agentclientprotocol/sdk 2.4.0) and
// the RFD's `{type: "session", sessionId}` content item.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder } from '../src/acp/index.js';
import type { SubagentContextRow } from '../src/types.js';
import { contextFor, recordInOrder } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'parent-session';
const on = (sessionId: string, update: Record<string, unknown>) => ({ sessionId, update });
const at = (update: Record<string, unknown>) => on(ACP, update);
const sessionContent = (sessionId: string) => [{ type: 'session', sessionId }];

describeBothDialects('ACP Subagent Sessions (completed RFD; v2 readiness)', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  async function record(updates: { sessionId: string; update: object }[]) {
    const { outcomes, rows } = await recordInOrder(db, ACP, updates);
    return { outcomes, rows: new Map<string, SubagentContextRow>(rows.map((r) => [r.tool_call_id, r])) };
  }

  it('a tool call naming its child in a `session` content item and the child subagent_update are one row (tool call first)', async () => {
    const { rows, outcomes } = await record([
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Review security', kind: 'other', status: 'pending', content: sessionContent('child-1') }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Security reviewer', description: 'reviewer', state: { state: 'running' } }),
      at({
        sessionUpdate: 'subagent_update',
        sessionId: 'child-1',
        state: { state: 'idle', stopReason: 'end_turn', usage: { totalTokens: 1234, inputTokens: 1000, outputTokens: 234 } },
      }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed' }),
    ]);
    expect(outcomes).toEqual(['persisted', 'persisted', 'persisted', 'persisted']);
    expect([...rows.keys()]).toEqual(['call-1']);
    expect(rows.get('call-1')).toMatchObject({
      child_session_id: 'child-1',
      description: 'Security reviewer',
      subagent_type: 'reviewer',
      agent_status: 'idle',
      tool_status: 'completed',
      total_tokens: 1234,
    });
    expect(rows.get('call-1')!.settled_at).not.toBeNull();
  });

  it('a child announced first, then a tool call first recognised by naming it: still one row, the child id its identity', async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-2', title: 'Explorer', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-2', title: 'Explore', kind: 'other', status: 'in_progress', content: sessionContent('child-2') }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call-2', status: 'completed', content: sessionContent('child-2') }),
    ]);
    expect([...rows.keys()]).toEqual(['child-2']);
    expect(rows.get('child-2')).toMatchObject({ child_session_id: 'child-2', tool_status: 'completed' });
  });

  it("a child announced first, then named by a call its agent's shape had already recognised: two rows, and each settles from its own updates", async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-5', title: 'Security review', description: 'general', state: { state: 'running' } }),
      at({ sessionUpdate: 'tool_call', toolCallId: 'toolu_5', title: 'task', kind: 'think', status: 'pending', rawInput: {} }),
      at({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'toolu_5',
        title: 'Security review',
        kind: 'think',
        status: 'in_progress',
        rawInput: { description: 'Security review', prompt: 'Review it', subagent_type: 'general' },
        content: sessionContent('child-5'),
      }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-5', state: { state: 'idle', stopReason: 'end_turn', usage: { totalTokens: 999 } } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_5', status: 'completed', rawOutput: { output: 'done', metadata: { sessionId: 'child-5' } } }),
    ]);
    expect([...rows.keys()].sort()).toEqual(['child-5', 'toolu_5']);
    // The child's idle settles the child's row (it used to go to the call's row, leaving this one open for good).
    expect(rows.get('child-5')).toMatchObject({ agent_status: 'idle', tool_status: 'completed', total_tokens: 999 });
    expect(rows.get('child-5')!.settled_at).not.toBeNull();
    expect(rows.get('toolu_5')).toMatchObject({ tool_status: 'completed', child_session_id: 'child-5' });
    expect(rows.get('toolu_5')!.settled_at).not.toBeNull();
  });

  it('without a `session` content item a generic tool call is no subagent; a subagent_update alone is one row keyed by the child', async () => {
    const { rows, outcomes } = await record([
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-3', title: 'Think', kind: 'think', status: 'pending' }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-3', title: 'Lone child', state: { state: 'running' } }),
    ]);
    expect(outcomes).toEqual([undefined, 'persisted']);
    expect([...rows.keys()]).toEqual(['child-3']);
  });

  it('subagent_update is a patch: omitted fields keep their values and null never blanks a stored column', async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-4', title: 'Planner', description: 'plan', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-4', title: null, description: null, state: null }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-4' }),
    ]);
    expect(rows.get('child-4')).toMatchObject({
      description: 'Planner',
      subagent_type: 'plan',
      agent_status: 'running',
      tool_status: 'in_progress',
      settled_at: null,
    });
  });

  // Claude's adapter announces a child with a title and its type in `description`; Codex sends its
  // spawn's prompt in `description` with no title, and a prompt can be one word (review of 2026-12-05).
  it("a description that is one identifier beside a title is the agent type; without a title (Codex's prompt, even one word), or a sentence, it is not; a patch with nothing a row holds writes nothing", async () => {
    const { rows, outcomes } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-type', title: 'Review security', description: 'general-purpose', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-word', description: 'Summarize', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-sent', description: 'Review the change for style.', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-sent', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-sent', capabilities: { cancel: null } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-sent', cwd: '/work', _meta: { x: 1 } }),
    ]);
    expect(outcomes).toEqual(['persisted', 'persisted', 'persisted', 'persisted', undefined, undefined]);
    expect(rows.get('c-type')).toMatchObject({ subagent_type: 'general-purpose', description: 'Review security' });
    expect(rows.get('c-word')).toMatchObject({ subagent_type: null, agent_status: 'running' });
    expect(rows.get('c-sent')).toMatchObject({ subagent_type: null, tool_status: 'completed', agent_status: 'idle' });
  });

  it('states: requires_action, unknown and custom are not terminal and are stored verbatim; idle settles as its stop reason says', async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-ra', state: { state: 'requires_action' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-un', state: { state: 'running' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-un', state: { state: 'unknown' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-cu', state: { state: '_paused', note: 'vendor state' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-end', state: { state: 'idle', stopReason: 'end_turn' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-none', state: { state: 'idle' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-can', state: { state: 'idle', stopReason: 'cancelled' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-err', state: { state: 'idle', stopReason: 'error', error: { code: -32000, message: 'boom' } } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-ref', state: { state: 'idle', stopReason: 'refusal' } }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-max', state: { state: 'idle', stopReason: 'max_tokens' } }),
    ]);
    const pick = (id: string) => {
      const r = rows.get(id)!;
      return [r.agent_status, r.tool_status, r.settled_at !== null];
    };
    expect(pick('c-ra')).toEqual(['requires_action', null, false]);
    expect(pick('c-un')).toEqual(['unknown', 'in_progress', false]);
    expect(pick('c-cu')).toEqual(['_paused', null, false]);
    expect(pick('c-end')).toEqual(['idle', 'completed', true]);
    expect(pick('c-none')).toEqual(['idle', 'completed', true]);
    expect(pick('c-can')).toEqual(['idle', 'cancelled', true]);
    expect(pick('c-err')).toEqual(['idle', 'failed', true]);
    expect(pick('c-ref')).toEqual(['idle', 'failed', true]);
    expect(pick('c-max')).toEqual(['idle', 'completed', true]);
  });

  it('a reused child (idle → running → idle) stays one row, settled at its first idle; its agent status and usage follow the wire', async () => {
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: contextFor(ACP) });
    await recorder.sessionUpdate(at({ sessionUpdate: 'subagent_update', sessionId: 'c-re', title: 'Helper', state: { state: 'running' } }));
    await recorder.sessionUpdate(
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-re', state: { state: 'idle', usage: { totalTokens: 100, inputTokens: 90, outputTokens: 10 } } }),
    );
    const [first] = await store.listBySession('s1');
    expect(first).toMatchObject({ tool_status: 'completed', agent_status: 'idle', total_tokens: 100 });
    await recorder.sessionUpdate(at({ sessionUpdate: 'subagent_update', sessionId: 'c-re', state: { state: 'running' } }));
    const [reopened] = await store.listBySession('s1');
    expect(reopened).toMatchObject({ tool_status: 'completed', agent_status: 'running', settled_at: first.settled_at, description: 'Helper' });
    await recorder.sessionUpdate(
      at({ sessionUpdate: 'subagent_update', sessionId: 'c-re', state: { state: 'idle', usage: { totalTokens: 250, inputTokens: 200, outputTokens: 50 } } }),
    );
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tool_status: 'completed', agent_status: 'idle', total_tokens: 250, settled_at: first.settled_at });
  });

  it("a child's title from session_info_update on its own session; ACP v2: its state_update settles the row", async () => {
    const { rows, outcomes } = await record([
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-v2' }),
      on('child-v2', { sessionUpdate: 'session_info_update', title: 'Refactor the parser' }),
      on('child-v2', { sessionUpdate: 'state_update', state: 'running' }),
      on('child-v2', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'working' } }),
      on('child-v2', { sessionUpdate: 'state_update', state: 'idle', stopReason: 'end_turn', usage: { totalTokens: 77, inputTokens: 70, outputTokens: 7 } }),
      on('unrelated-session', { sessionUpdate: 'state_update', state: 'idle' }),
    ]);
    expect(outcomes).toEqual(['persisted', 'persisted', 'persisted', undefined, 'persisted', undefined]);
    expect([...rows.keys()]).toEqual(['child-v2']);
    expect(rows.get('child-v2')).toMatchObject({ description: 'Refactor the parser', agent_status: 'idle', tool_status: 'completed', total_tokens: 77 });
  });

  it('ACP v2 with a tool call naming the child: the child session state settles the tool call row', async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-v2', title: 'Delegate', kind: 'other', status: 'in_progress', content: sessionContent('child-v2b') }),
      on('child-v2b', { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' }),
    ]);
    expect([...rows.keys()]).toEqual(['call-v2']);
    expect(rows.get('call-v2')).toMatchObject({ tool_status: 'cancelled', child_session_id: 'child-v2b' });
  });

  it("a nested child announced on a child's session gets that child's row as its parent (joined to its tool call)", async () => {
    const { rows } = await record([
      at({ sessionUpdate: 'tool_call', toolCallId: 'call-p', title: 'Outer', kind: 'other', status: 'in_progress', content: sessionContent('child-p') }),
      on('child-p', { sessionUpdate: 'subagent_update', sessionId: 'child-n', title: 'Inner', state: { state: 'running' } }),
    ]);
    expect(rows.get('child-n')).toMatchObject({ parent_tool_call_id: 'call-p', description: 'Inner' });
  });

  it("a child session's call under the id of its parent's call is a call of its own: two rows, each settled as its own updates say", async () => {
    // ACP makes a toolCallId unique within its session only: an agent numbering calls per
    // session gives the child's first call the root's `call_1` again.
    const { rows } = await record([
      at({
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        title: 'Review security',
        kind: 'other',
        status: 'in_progress',
        content: sessionContent('child-1'),
      }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Review security', state: { state: 'running' } }),
      on('child-1', {
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        title: 'Nested check',
        kind: 'other',
        status: 'in_progress',
        content: sessionContent('grandchild'),
      }),
      on('child-1', { sessionUpdate: 'subagent_update', sessionId: 'grandchild', title: 'Nested check', state: { state: 'running' } }),
      on('child-1', { sessionUpdate: 'subagent_update', sessionId: 'grandchild', state: { state: 'idle', stopReason: 'end_turn' } }),
      on('child-1', { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'completed' }),
      at({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'error' } }),
      at({ sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'failed' }),
    ]);
    expect([...rows.keys()].sort()).toEqual(['call_1', 'child-1/call_1']);
    expect(rows.get('call_1')).toMatchObject({ parent_tool_call_id: null, description: 'Review security', child_session_id: 'child-1', tool_status: 'failed' });
    expect(rows.get('child-1/call_1')).toMatchObject({
      parent_tool_call_id: 'call_1',
      description: 'Nested check',
      child_session_id: 'grandchild',
      tool_status: 'completed',
    });
  });
});
