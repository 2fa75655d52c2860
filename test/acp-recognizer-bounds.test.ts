// The recognizer's memory under hostile or endless traffic (pure, no database; review of
// 2026-12-05): session and call ids are data, so no character in them may merge two calls'
// entries or let eviction miss the call it drops; and the joins of ACP's `session` content,
// one per child a call names, are bounded overall like the calls, so sessions that each leave
// one behind (a host that never calls forget, like the proxy) do not pile up.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';

const up = (sessionId: string, update: Record<string, unknown>) => ({ sessionId, update });
const launch = (id: string) => ({ sessionUpdate: 'tool_call', toolCallId: id, title: 'task', kind: 'think', status: 'pending' });
const later = (id: string) => ({ sessionUpdate: 'tool_call_update', toolCallId: id, title: 'Review', kind: 'think', status: 'in_progress' });

describe('ACP recognizer: bounded state under hostile ids and endless sessions', () => {
  it('a NUL in a session or call id neither merges two calls nor lets eviction keep the call it drops', () => {
    const r = createSubagentRecognizer({ maxCalls: 2 });
    // Two different (session, call) pairs that a separator-joined key would spell alike.
    r.observe(up('a\u0000b', launch('c')));
    r.observe(up('a', launch('b\u0000c')));
    expect(r.size()).toBe(2);
    // A third call evicts the oldest: that call is gone (its later frame is not a launch), the others are not.
    r.observe(up('a\u00002', launch('d')));
    expect(r.size()).toBe(2);
    expect(r.observe(up('a\u0000b', later('c')))).toBeUndefined();
    expect(r.observe(up('a', later('b\u0000c')))).toBeDefined();
  });

  it('a cap that is not a finite number (NaN from an unset environment variable) is the default, not no cap at all', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 'many' as unknown as number]) {
      const r = createSubagentRecognizer({ maxCallsPerSession: bad, maxCalls: bad });
      for (let i = 0; i < 1100; i++) r.observe(up('one-session', launch(`call-${i}`)));
      expect(r.size(), String(bad)).toBe(1024); // the per-session default
    }
    const fractional = createSubagentRecognizer({ maxCallsPerSession: 2.5 });
    for (let i = 0; i < 5; i++) fractional.observe(up('one-session', launch(`call-${i}`)));
    expect(fractional.size()).toBe(2);
  });

  it('joins stay within maxCalls over 100,000 sessions that each join a call to a child and never forget', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const r = createSubagentRecognizer({ maxCalls: 10 });
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed / 2 ** 20;
    };
    const session = (i: number) => {
      const s = `acp-${i}`;
      r.observe(up(s, { sessionUpdate: 'subagent_update', sessionId: `child-${i}`, title: 'Explorer', state: { state: 'running' } }));
      r.observe(
        up(s, {
          sessionUpdate: 'tool_call',
          toolCallId: `call-${i}`,
          title: 'Explore',
          kind: 'other',
          status: 'in_progress',
          content: [{ type: 'session', sessionId: `child-${i}` }],
        }),
      );
      r.observe(up(s, { sessionUpdate: 'subagent_update', sessionId: `child-${i}`, state: { state: 'idle', stopReason: 'end_turn' } }));
    };
    for (let i = 0; i < 1_000; i++) session(i);
    const before = heap();
    for (let i = 1_000; i < 100_000; i++) session(i);
    // Calls, children and joins: each at most maxCalls.
    expect(r.size()).toBeLessThanOrEqual(30);
    // Nothing else kept per session: a session entry per session ever seen was about 0.9 kB (87 MB here).
    expect(heap() - before).toBeLessThan(8);
  });

  it('a child in use outlives the short children announced after it: the bounds drop the least recently seen', () => {
    const r = createSubagentRecognizer({ maxCallsPerSession: 4 });
    const sub = (child: string, state: string) => up('S', { sessionUpdate: 'subagent_update', sessionId: child, title: child, state: { state } });
    const call = (status: string) => up('S', { sessionUpdate: 'tool_call_update', toolCallId: 'c1', kind: 'other', status });
    r.observe(
      up('S', {
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'Watch CI',
        kind: 'other',
        status: 'in_progress',
        content: [{ type: 'session', sessionId: 'k1' }],
      }),
    );
    r.observe(sub('k1', 'running'));
    // Ten short children come and go (an idle child is kept: it may be reused); the call that
    // named k1 is seen between every two, and k1 itself never.
    for (let i = 0; i < 10; i++) {
      r.observe(sub(`x${i}`, 'running'));
      r.observe(sub(`x${i}`, 'idle'));
      if (i % 2 === 1) expect(r.observe(call('in_progress'))?.toolCallId).toBe('c1');
    }
    // k1 is still c1's child: a tool call on its session is nested under c1, on the root session,
    // and its own idle (ACP v2) settles c1's row, not a row of its own.
    const nested = r.observe(
      up('k1', {
        sessionUpdate: 'tool_call',
        toolCallId: 'n1',
        title: 'Spawn',
        kind: 'other',
        status: 'pending',
        content: [{ type: 'session', sessionId: 'k2' }],
      }),
    );
    // Its id is qualified by k1: ACP makes a tool call id unique within its session only.
    expect(nested).toMatchObject({ acpSessionId: 'S', toolCallId: 'k1/n1', parentToolCallId: 'c1' });
    expect(r.observe(up('k1', { sessionUpdate: 'state_update', state: 'idle' }))).toMatchObject({
      acpSessionId: 'S',
      toolCallId: 'c1',
      toolStatus: 'completed',
    });
    // The bound held all the same: the short children seen longest ago were the ones dropped.
    expect(r.size()).toBeLessThanOrEqual(3 * 4);
  });
});
