// The recognizer reads only own properties of an update, and tests ownership before it reads:
// a getter on a polluted prototype, or a Proxy trap, for a field the update does not carry never
// runs, so neither can make a real launch go unrecognized (a review, 2026-12-07, found a version
// of field() that read first and lost the launch). Pure recognizer, no store.
import { describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';

const S = 'acp-1';
const up = (update: Record<string, unknown>, sessionId = S) => ({ sessionId, update });

describe('ACP recognizer: hostile reads', () => {
  it('a getter or Proxy trap for a field the update does not carry never runs: a real launch is still recognized', () => {
    const launch = (toolCallId: string) =>
      up({ sessionUpdate: 'tool_call', toolCallId, rawInput: { description: 'Review auth' }, _meta: { claudeCode: { toolName: 'Agent' } } });
    // A polluted prototype whose getter throws, for `status` and `content`, which this update does not carry.
    for (const key of ['status', 'content']) {
      Object.defineProperty(Object.prototype, key, {
        configurable: true,
        get() {
          throw new Error('polluted');
        },
      });
      try {
        expect(createSubagentRecognizer().observe(launch(`t-${key}`))?.toolCallId, key).toBe(`t-${key}`);
      } finally {
        delete (Object.prototype as Record<string, unknown>)[key];
      }
    }
    // A Proxy that throws on a read of a key it does not have (answering ownership truthfully).
    const strict = (target: Record<string, unknown>): Record<string, unknown> =>
      new Proxy(target, {
        get(t, key, receiver) {
          if (typeof key === 'string' && !Object.prototype.hasOwnProperty.call(t, key)) throw new Error(`no ${key}`);
          return Reflect.get(t, key, receiver) as unknown;
        },
      });
    const update = launch('t-proxy').update as Record<string, unknown>;
    expect(createSubagentRecognizer().observe({ sessionId: S, update: strict(update) })?.toolCallId).toBe('t-proxy');
  });
});
