// A child session's own tool calls (docs/acp-intake.md, "A child session's own tool calls"):
// ACP makes a toolCallId unique within its session only, so a call seen on a child session is
// `<child>/<id>` in the root's rows. What refers to such a call by its wire id must find it
// the same way: an agent's parent link on that session, a cursor/task request (naming the
// child, the root, or no session), and forget() of the root. Pure recognizer, no database:
// the rows these frames write are tested end to end in acp-subagent-sessions.test.ts.
import { describe, expect, it } from 'vitest';
import { createSubagentRecognizer, type RecognizedSubagentUpdate } from '../src/acp/index.js';

const on = (sessionId: string, update: Record<string, unknown>) => ({ sessionId, update });
const announce = (child: string) => on('root', { sessionUpdate: 'subagent_update', sessionId: child, title: `Helper ${child}`, state: { state: 'running' } });
const cursorTask = (session: string, id: string) =>
  on(session, {
    sessionUpdate: 'tool_call',
    toolCallId: id,
    title: 'Task',
    kind: 'other',
    status: 'pending',
    rawInput: { _toolName: 'task', description: `Review ${session}` },
  });
const request = (toolCallId: string, model: string, sessionId?: string) => ({
  toolCallId,
  agentId: `agent-${model}`,
  model,
  ...(sessionId ? { sessionId } : {}),
});
const seen = (r: RecognizedSubagentUpdate | undefined) => r && { id: r.toolCallId, parent: r.parentToolCallId, model: r.payload.model ?? null };

describe("ACP: a child session's own tool calls, found by their wire ids", () => {
  it('a cursor/task request that named the root is joined by the root call of its id, never by a child call of the same id', () => {
    const r = createSubagentRecognizer();
    r.observe(announce('child-1'));
    expect(r.observeRequest('cursor/task', request('call_1', 'model-root', 'root'))).toBeUndefined(); // held
    expect(seen(r.observe(cursorTask('child-1', 'call_1')))).toEqual({ id: 'child-1/call_1', parent: 'child-1', model: null });
    expect(seen(r.observe(cursorTask('root', 'call_1')))).toEqual({ id: 'call_1', parent: null, model: 'model-root' });
  });

  it('a cursor/task request that named the child is joined by the child call of its id, before or after it', () => {
    const before = createSubagentRecognizer();
    before.observe(announce('child-1'));
    expect(before.observeRequest('cursor/task', request('call_1', 'model-child', 'child-1'))).toBeUndefined();
    expect(seen(before.observe(cursorTask('root', 'call_1')))?.model).toBeNull();
    expect(seen(before.observe(cursorTask('child-1', 'call_1')))).toEqual({ id: 'child-1/call_1', parent: 'child-1', model: 'model-child' });
    const after = createSubagentRecognizer();
    after.observe(announce('child-1'));
    after.observe(cursorTask('child-1', 'call_1'));
    expect(seen(after.observeRequest('cursor/task', request('call_1', 'model-child', 'child-1')))).toEqual({
      id: 'child-1/call_1',
      parent: 'child-1',
      model: 'model-child',
    });
  });

  it("a request that names no session (Cursor's own form) joins the one Task call of its id, on a child session too; two are ambiguous", () => {
    const r = createSubagentRecognizer();
    r.observe(announce('child-1'));
    r.observe(cursorTask('child-1', 'call_2'));
    expect(seen(r.observeRequest('cursor/task', request('call_2', 'model-2')))).toEqual({ id: 'child-1/call_2', parent: 'child-1', model: 'model-2' });
    // Joined, so not held: a root Task call of the same id later gets nothing of it.
    expect(seen(r.observe(cursorTask('root', 'call_2')))?.model).toBeNull();
    // Now two remembered Task calls have the id call_2: a request naming no session joins neither.
    expect(r.observeRequest('cursor/task', request('call_2', 'model-3'))).toBeUndefined();
    expect(seen(r.observe(on('root', { sessionUpdate: 'tool_call_update', toolCallId: 'call_2', status: 'in_progress' })))?.model).toBeNull();
  });

  it("an agent's parent link on a child session names that session's call, by its qualified id", () => {
    const r = createSubagentRecognizer();
    r.observe(announce('child-1'));
    const qwen = (id: string, provenance: string, parent?: string) =>
      on('child-1', {
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status: 'in_progress',
        rawInput: { description: id, prompt: 'p', subagent_type: 'general-purpose' },
        _meta: { toolName: 'agent', provenance, ...(parent ? { parentToolCallId: parent } : {}) },
      });
    expect(seen(r.observe(qwen('q1', 'builtin')))).toEqual({ id: 'child-1/q1', parent: 'child-1', model: null });
    expect(seen(r.observe(qwen('q2', 'subagent', 'q1')))).toEqual({ id: 'child-1/q2', parent: 'child-1/q1', model: null });
    const claude = (id: string, parent?: string) =>
      on('child-1', {
        sessionUpdate: 'tool_call',
        toolCallId: id,
        status: 'pending',
        rawInput: {},
        _meta: { claudeCode: { toolName: 'Agent', ...(parent ? { parentToolUseId: parent } : {}) } },
      });
    r.observe(claude('t1'));
    expect(seen(r.observe(claude('t2', 't1')))).toEqual({ id: 'child-1/t2', parent: 'child-1/t1', model: null });
  });

  it("Claude's parent link on a child session names the call that launched the child, in the parent: that row; a link to no call: the child's", () => {
    const r = createSubagentRecognizer();
    const agent = (session: string, id: string, parent?: string, content?: unknown[]) =>
      on(session, {
        sessionUpdate: 'tool_call',
        toolCallId: id,
        status: 'pending',
        rawInput: {},
        ...(content ? { content } : {}),
        _meta: { claudeCode: { toolName: 'Agent', ...(parent ? { parentToolUseId: parent } : {}) } },
      });
    // ACP v1: the root's Agent call names its child; the child's own Agent call links back to it.
    r.observe(agent('root', 'toolu_P', undefined, [{ type: 'session', sessionId: 'child-1' }]));
    r.observe(announce('child-1'));
    expect(seen(r.observe(agent('child-1', 'toolu_N', 'toolu_P')))).toEqual({ id: 'child-1/toolu_N', parent: 'toolu_P', model: null });
    // As Claude Code sends it with the `subagents` capability: the link names a launch that was
    // never a tool call here (the child is its subagent_update): the call stays under the child.
    r.observe(announce('child-2'));
    expect(seen(r.observe(agent('child-2', 'toolu_M', 'toolu_fake0002')))).toEqual({ id: 'child-2/toolu_M', parent: 'child-2', model: null });
  });

  it('a child session id and a call id each recordable but too long together: the call is written under a digest of the two, every frame alike; one unrecordable alone is not', () => {
    const r = createSubagentRecognizer();
    const child = `child-${'c'.repeat(300)}`;
    const call = `call-${'x'.repeat(300)}`;
    r.observe(announce(child));
    const first = r.observe(cursorTask(child, call));
    expect(first?.toolCallId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.observe(on(child, { sessionUpdate: 'tool_call_update', toolCallId: call, status: 'completed' }))?.toolCallId).toBe(first?.toolCallId);
    r.observe(announce('child-2'));
    expect(r.observe(cursorTask('child-2', call))?.toolCallId).toBe(`child-2/${call}`); // short enough together: as it is
    // An id the store would skip alone (over 512 bytes) is no digest: skipped on a child as on the root.
    const long = `call-${'y'.repeat(600)}`;
    expect(r.observe(cursorTask('child-2', long))?.toolCallId).toBe(`child-2/${long}`);
  });

  it("a link is resolved once: Qwen's nested call keeps its parent in its session after that parent settles, whatever the root holds", () => {
    const r = createSubagentRecognizer();
    const qwen = (session: string, id: string, parent?: string, status = 'in_progress') =>
      on(session, {
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status,
        rawInput: { description: id, prompt: 'p', subagent_type: 'general-purpose' },
        _meta: { toolName: 'agent', provenance: parent ? 'subagent' : 'builtin', ...(parent ? { parentToolCallId: parent } : {}) },
      });
    r.observe(announce('child-1'));
    r.observe(qwen('root', 'q1')); // the root's own q1, running
    r.observe(qwen('child-1', 'q1'));
    expect(seen(r.observe(qwen('child-1', 'q2', 'q1')))?.parent).toBe('child-1/q1');
    r.observe(qwen('child-1', 'q1', undefined, 'completed')); // the child's q1 settles and is forgotten
    expect(seen(r.observe(qwen('child-1', 'q2', 'q1', 'completed')))?.parent).toBe('child-1/q1');
    // Qwen's link is within its session: a nested call seen after its parent was forgotten still names it.
    r.observe(qwen('child-1', 'q3'));
    r.observe(qwen('child-1', 'q3', undefined, 'completed'));
    expect(seen(r.observe(qwen('child-1', 'q4', 'q3')))?.parent).toBe('child-1/q3');
  });

  it('a link to a call not seen yet is tried again on the next frame; a root frame keeps the id it sent, whatever a child session linked', () => {
    const claude = (session: string, id: string, status: string, first: boolean, parent?: string) =>
      on(session, {
        sessionUpdate: first ? 'tool_call' : 'tool_call_update',
        toolCallId: id,
        status,
        _meta: { claudeCode: { toolName: 'Agent', ...(parent ? { parentToolUseId: parent } : {}) } },
      });
    const r = createSubagentRecognizer();
    r.observe(announce('c1'));
    expect(seen(r.observe(claude('c1', 'N', 'pending', true, 'P')))?.parent).toBe('c1'); // P not seen yet
    r.observe(claude('c1', 'P', 'pending', true));
    expect(seen(r.observe(claude('c1', 'N', 'in_progress', false, 'P')))?.parent).toBe('c1/P');
    // Two calls share a row (a child reused): a late frame of the first, on its child session, links
    // within that session; the second's frames on the root still carry the id as sent.
    const qwen = (session: string, id: string, status: string, extra: { first?: boolean; parent?: string; child?: string } = {}) =>
      on(session, {
        sessionUpdate: extra.first ? 'tool_call' : 'tool_call_update',
        toolCallId: id,
        status,
        rawInput: { description: id, prompt: 'p', subagent_type: 'general-purpose' },
        ...(extra.child ? { content: [{ type: 'session', sessionId: extra.child }] } : {}),
        _meta: { toolName: 'agent', provenance: extra.parent ? 'subagent' : 'builtin', ...(extra.parent ? { parentToolCallId: extra.parent } : {}) },
      });
    const q = createSubagentRecognizer();
    q.observe(announce('c1'));
    q.observe(announce('c2'));
    q.observe(qwen('c1', 'a', 'pending', { first: true, child: 'c2' }));
    q.observe(qwen('c1', 'a', 'completed', { parent: 'x' }));
    q.observe(announce('c2'));
    q.observe(qwen('root', 'b', 'pending', { first: true, child: 'c2' }));
    q.observe(qwen('c1', 'a', 'completed', { parent: 'x' })); // the first call's late frame
    expect(seen(q.observe(qwen('root', 'b', 'in_progress', { parent: 'x' })))?.parent).toBe('x');
  });

  it('forget(root) drops a request held for a child it no longer knows (the bound dropped the child first)', () => {
    const r = createSubagentRecognizer({ maxCallsPerSession: 1 });
    r.observe(announce('child-1'));
    r.observeRequest('cursor/task', request('call_9', 'm', 'child-1'));
    r.observe(announce('child-2')); // one child per session: child-1 goes
    r.forget('root');
    expect(r.size()).toBe(0);
  });
});
