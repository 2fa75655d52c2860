// The recognizer alone (pure, no database): recognition per agent, accumulation per tool
// call, statuses verbatim, hostile input, and bounded state.
import { describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { loadAcpFixture } from './helpers/acp-fixtures.js';

const S = 'acp-1';
const up = (update: Record<string, unknown>, sessionId = S) => ({ sessionId, update });
const claude = (toolCallId: string, extra: Record<string, unknown>, claudeCode: Record<string, unknown> = {}) =>
  up({ sessionUpdate: 'tool_call_update', toolCallId, ...extra, _meta: { claudeCode: { toolName: 'Agent', ...claudeCode } } });

describe('ACP recognizer', () => {
  it('Claude: usage from the status-less toolResponse frame reaches the terminal update; later zeros and empties never overwrite', () => {
    const r = createSubagentRecognizer();
    expect(
      r.observe(
        up({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Task', status: 'pending', rawInput: {}, _meta: { claudeCode: { toolName: 'Agent' } } }),
      ),
    ).toEqual({
      acpSessionId: S,
      toolCallId: 't1',
      parentToolCallId: null,
      toolStatus: 'pending',
      payload: {},
    });
    expect(r.observe(claude('t1', { rawInput: { description: 'Rev' } }))?.payload).toEqual({ description: 'Rev' }); // partial input
    expect(r.observe(claude('t1', { rawInput: { description: 'Review auth', prompt: 'p', subagent_type: 'security' } }))?.toolStatus).toBeNull();
    const usage = {
      status: 'completed',
      agentId: 'a1',
      totalTokens: 900,
      totalToolUseCount: 3,
      totalDurationMs: 1200,
      resolvedModel: 'claude-x',
      agentType: 'general-purpose',
    };
    r.observe(claude('t1', {}, { toolResponse: usage }));
    // A later frame reporting zero tokens, zero duration, zero tool uses and empty text changes nothing (AC-4, AC-7a, AC-8).
    r.observe(claude('t1', { rawInput: { description: '' } }, { toolResponse: { totalTokens: 0, totalDurationMs: 0, totalToolUseCount: 0, status: '' } }));
    const last = r.observe(claude('t1', { status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'done' } }] }));
    expect(last).toEqual({
      acpSessionId: S,
      toolCallId: 't1',
      parentToolCallId: null,
      toolStatus: 'completed',
      payload: {
        description: 'Review auth',
        prompt: 'p',
        subagent_type: 'security', // the input's, not agentType
        status: 'completed',
        agent_id: 'a1',
        model: 'claude-x',
        total_tokens: 900,
        tool_use_count: 3,
        duration_ms: 1200,
        result_text: 'done',
      },
    });
  });

  it('Claude: agentType fills subagent_type only when the input named none; a reported zero tool-use count is kept when nothing was learned', () => {
    const r = createSubagentRecognizer();
    r.observe(claude('t2', { rawInput: { description: 'd' } }));
    expect(r.observe(claude('t2', {}, { toolResponse: { agentType: 'Explore', totalToolUseCount: 0 } }))?.payload).toMatchObject({
      subagent_type: 'Explore',
      tool_use_count: 0,
    });
  });

  it('Claude 2.1.335: a launch refused for want of the safety check keeps the reason (result_text) and the refusal kind (status); nothing is kept after', () => {
    // As measured when the Messages API does not answer the server-side check (test/agents/fake-messages-api.ts).
    const r = createSubagentRecognizer();
    r.observe(
      up({ sessionUpdate: 'tool_call', toolCallId: 'r1', title: 'Task', status: 'pending', rawInput: {}, _meta: { claudeCode: { toolName: 'Agent' } } }),
    );
    r.observe(claude('r1', { rawInput: { description: 'Review security', prompt: 'p', subagent_type: 'general-purpose' } }));
    const message = 'Auto mode is unavailable: its safety check does not run for this session, so Agent was not run.';
    const failed = r.observe(
      claude(
        'r1',
        { status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'Permission denied: Classifier unavailable' } }] },
        { toolResponse: { decisionReasonType: 'classifier', decisionReason: 'Classifier unavailable', message } },
      ),
    );
    expect(failed).toMatchObject({
      toolStatus: 'failed',
      payload: { description: 'Review security', result_text: 'Permission denied: Classifier unavailable' },
    });
    expect(failed?.payload.status).toBeUndefined();
    expect(r.size()).toBe(0);
    const after = r.observe(
      claude(
        'r1',
        { content: [{ type: 'content', content: { type: 'text', text: '```\n' + message + '\n```' } }], rawOutput: message },
        { nonExecutionKind: 'automode-unavailable' },
      ),
    );
    expect(after).toMatchObject({ toolCallId: 'r1', toolStatus: null, payload: { status: 'automode-unavailable' } });
    expect(r.size()).toBe(0); // the call's last update: no state left behind
    // Any other tool's refusal is no subagent.
    const read = up({ sessionUpdate: 'tool_call_update', toolCallId: 'x1', _meta: { claudeCode: { toolName: 'Read', nonExecutionKind: 'automode-blocked' } } });
    expect(r.observe(read)).toBeUndefined();
  });

  it('Claude: the subagent’s own tools, Monitor and ScheduleWakeup are not subagents; a nested Agent carries its parent', () => {
    const r = createSubagentRecognizer();
    for (const toolName of ['Read', 'Bash', 'SubagentHandback', 'Monitor', 'ScheduleWakeup']) {
      expect(
        r.observe(
          up({
            sessionUpdate: 'tool_call',
            toolCallId: `x-${toolName}`,
            title: 'Task',
            status: 'pending',
            _meta: { claudeCode: { toolName, parentToolUseId: 't1' } },
          }),
        ),
      ).toBeUndefined();
    }
    expect(
      r.observe(
        up({
          sessionUpdate: 'tool_call',
          toolCallId: 'n1',
          status: 'pending',
          rawInput: {},
          _meta: { claudeCode: { toolName: 'Agent', parentToolUseId: 't1' } },
        }),
      )?.parentToolCallId,
    ).toBe('t1');
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'old', status: 'pending', _meta: { claudeCode: { toolName: 'Task' } } }))).toBeDefined(); // older adapters
    expect(r.size()).toBe(2);
  });

  it('OpenCode: only the first frame says `task`; recognition is remembered per tool call, and in_progress twice is verbatim', () => {
    const r = createSubagentRecognizer();
    expect(r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: 'o1', title: 'Review', status: 'in_progress' }))).toBeUndefined(); // unknown call, no evidence
    r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'o2', title: 'task', kind: 'think', status: 'pending', rawInput: {} }));
    expect(
      r.observe(
        up({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'o2',
          title: 'Review',
          status: 'in_progress',
          rawInput: { description: 'Review', subagent_type: 'general' },
        }),
      )?.toolStatus,
    ).toBe('in_progress');
    const end = r.observe(
      up({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'o2',
        title: 'Review',
        status: 'completed',
        rawOutput: { output: 'ok', metadata: { sessionId: 'ses_1', model: { providerID: 'anthropic', modelID: 'claude-x' }, background: true } },
      }),
    );
    expect(end?.payload).toEqual({
      description: 'Review',
      subagent_type: 'general',
      child_session_id: 'ses_1',
      model: 'anthropic/claude-x',
      is_async: true,
      result_text: 'ok',
    });
  });

  it('subagent_update: the child session is the tool-call identity and child_session_id; idle settles; a nested child names its parent', () => {
    const r = createSubagentRecognizer();
    const first = r.observe(
      up({ sessionUpdate: 'subagent_update', sessionId: 'child-1', title: 'Review', description: 'general-purpose', state: { state: 'running' } }),
    );
    expect(first).toEqual({
      acpSessionId: S,
      toolCallId: 'child-1',
      parentToolCallId: null,
      toolStatus: 'in_progress',
      payload: { description: 'Review', subagent_type: 'general-purpose', child_session_id: 'child-1', status: 'running' },
    });
    // Announced on child-1's own session: nested; its traffic belongs to the host's session S.
    const nested = r.observe(up({ sessionUpdate: 'subagent_update', sessionId: 'child-2', title: 'Nested', state: { state: 'running' } }, 'child-1'));
    expect(nested).toMatchObject({ acpSessionId: S, toolCallId: 'child-2', parentToolCallId: 'child-1' });
    const idle = r.observe(
      up({ sessionUpdate: 'subagent_update', sessionId: 'child-1', state: { state: 'idle', stopReason: 'end_turn', usage: { totalTokens: 77 } } }),
    );
    expect(idle).toMatchObject({ toolStatus: 'completed', payload: { description: 'Review', status: 'idle', total_tokens: 77 } });
  });

  it('never throws on hostile or malformed input, and is not fooled by a polluted prototype', () => {
    const r = createSubagentRecognizer();
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const throwing = {
      get update(): never {
        throw new Error('boom');
      },
      sessionId: S,
    };
    const inputs: unknown[] = [
      null,
      undefined,
      42,
      'x',
      {},
      { sessionId: 1, update: {} },
      { sessionId: S, update: 'x' },
      { sessionId: S, update: null },
      { sessionId: S, update: [] },
      { sessionId: '', update: { sessionUpdate: 'tool_call', toolCallId: 't', title: 'task', kind: 'think' } },
      { sessionId: S, update: { sessionUpdate: 'tool_call', title: 'task', kind: 'think' } }, // no toolCallId
      { sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 7, title: 'task', kind: 'think' } },
      { sessionId: S, update: { sessionUpdate: 'subagent_update' } },
      { sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 't', _meta: { claudeCode: { toolName: 42 } }, rawInput: 'nope' } },
      { sessionId: S, update: revoked.proxy },
      throwing,
      JSON.parse('{"sessionId":"acp-1","update":{"sessionUpdate":"tool_call","toolCallId":"p","kind":"think","__proto__":{"title":"task"}}}'),
    ];
    for (const input of inputs) expect(() => r.observe(input as never)).not.toThrow();
    for (const input of inputs) expect(r.observe(input as never)).toBeUndefined();
    expect(r.size()).toBe(0);
  });

  it('a huge title is read in linear time (no backtracking) and kept whole', () => {
    const r = createSubagentRecognizer();
    const description = 'd'.repeat(5_000_000);
    const t0 = performance.now();
    const got = r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'h', title: `sub-agent-x: ${description}`, status: 'pending' }));
    expect(got?.payload.description?.length).toBe(5_000_000);
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'h2', title: `sub-agent-${'y'.repeat(5_000_000)}`, status: 'pending' }))).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('a returned payload is a snapshot: changing it changes nothing remembered', () => {
    const r = createSubagentRecognizer();
    const first = r.observe(claude('s', { rawInput: { description: 'keep' } }))!;
    first.payload.description = 'changed';
    expect(r.observe(claude('s', {}))?.payload.description).toBe('keep');
  });

  it('state is bounded per session and overall (least recently seen first), and forget drops a session', () => {
    const r = createSubagentRecognizer({ maxCallsPerSession: 3, maxCalls: 5 });
    const launch = (session: string, id: string) =>
      r.observe(up({ sessionUpdate: 'tool_call', toolCallId: id, title: 'task', kind: 'think', status: 'pending' }, session));
    for (let i = 0; i < 10; i++) launch('a', `a${i}`);
    expect(r.size()).toBe(3);
    // a7..a9 are remembered; a6 is gone, so its later update (no evidence of a launch) is not recognized.
    expect(r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: 'a6', title: 'Review', status: 'in_progress' }, 'a'))).toBeUndefined();
    expect(r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: 'a9', title: 'Review', status: 'in_progress' }, 'a'))).toBeDefined();
    for (let i = 0; i < 3; i++) launch('b', `b${i}`);
    expect(r.size()).toBe(5);
    r.forget('b');
    expect(r.size()).toBe(2);
    r.forget('a');
    expect(r.size()).toBe(0);
  });

  it('an update makes its call the most recent: the eviction takes the least recently seen, per session and overall', () => {
    const r = createSubagentRecognizer({ maxCallsPerSession: 3, maxCalls: 4 });
    const launch = (session: string, id: string) =>
      r.observe(up({ sessionUpdate: 'tool_call', toolCallId: id, title: 'task', kind: 'think', status: 'pending' }, session));
    const touch = (session: string, id: string) =>
      r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: id, title: 'Review', status: 'in_progress' }, session));
    // Per session: a0 a1 a2, a0 touched (twice: the second moves nothing), a3 launched: a1 goes.
    for (const id of ['a0', 'a1', 'a2']) launch('a', id);
    expect(touch('a', 'a0')).toBeDefined();
    expect(touch('a', 'a0')).toBeDefined();
    launch('a', 'a3');
    expect(touch('a', 'a1')).toBeUndefined();
    // Overall: a2 a0 a3 (a0 touched after a2), then b0 is the fourth; a2 touched, b1 launched: a0 goes.
    launch('b', 'b0');
    expect(touch('a', 'a2')).toBeDefined();
    launch('b', 'b1');
    expect(r.size()).toBe(4);
    expect(touch('a', 'a0')).toBeUndefined();
    for (const [session, id] of [
      ['a', 'a2'],
      ['a', 'a3'],
      ['b', 'b0'],
      ['b', 'b1'],
    ])
      expect(touch(session, id)).toBeDefined();
  });

  it('recorded traffic: recognition never depends on anything but the update (two recognizers agree)', () => {
    const a = createSubagentRecognizer();
    const b = createSubagentRecognizer();
    for (const u of loadAcpFixture('claude-fanout')) expect(a.observe(u)).toEqual(b.observe(structuredClone(u)));
  });
});
