// The recorder's writes of one ACP session in the order given, whether the store finished a write
// inside its call (SQLite: returned as it is, no chain) or not (an asynchronous context,
// PostgreSQL, a store that is not this package's): a synchronous answer after a pending one waits
// for it, and a foreign store's plain answer still comes back as a promise. Both dialects.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, type AcpHostContext } from '../src/acp/index.js';
import { contextFor, HOST } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const S = 'acp-1';
const launch = (toolCallId: string, extra: Record<string, unknown> = {}) => ({
  sessionId: S,
  update: { sessionUpdate: 'tool_call', toolCallId, title: 'task', kind: 'think', status: 'pending', rawInput: {}, ...extra },
});

describeBothDialects('ACP recorder: write order', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it("a synchronous answer after a pending asynchronous one waits for it: the later (fuller) input is the row's", async () => {
    const store = db.store({ clock: steppingClock() });
    let n = 0;
    // The first answer comes later; the second at once, written in the call where no write is pending (SQLite).
    const context = (): AcpHostContext | Promise<AcpHostContext> =>
      n++ === 0 ? new Promise<AcpHostContext>((resolve) => setTimeout(() => resolve(HOST), 40)) : HOST;
    const recorder = createAcpRecorder(store, { context });
    const update = (description: string) => ({
      sessionId: S,
      update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', rawInput: { description }, _meta: { claudeCode: { toolName: 'Agent' } } },
    });
    const first = recorder.sessionUpdate(update('Rev'));
    const second = recorder.sessionUpdate(update('Review auth'));
    const third = recorder.sessionUpdate(update('Review auth and tokens'));
    expect(await Promise.all([first, second, third])).toEqual(['persisted', 'persisted', 'persisted']);
    expect((await store.listBySession('s1')).map((r) => r.description)).toEqual(['Review auth and tokens']);
    // Once nothing is pending, a synchronous answer is written again in the call, in order.
    expect(await recorder.sessionUpdate(update('Review auth, tokens and keys'))).toBe('persisted');
    expect((await store.listBySession('s1')).map((r) => r.description)).toEqual(['Review auth, tokens and keys']);
  });

  it("a store that is not this package's answering with a plain value: sessionUpdate still returns a promise of it", async () => {
    const real = db.store();
    const answers: unknown[] = ['persisted', 'whatever', undefined];
    let calls = 0;
    const plain = new Proxy(real, {
      get(target, key, receiver) {
        if (key !== 'recordFrame') return Reflect.get(target, key, receiver);
        return () => answers[calls++];
      },
    });
    const recorder = createAcpRecorder(plain as typeof real, { context: contextFor(S) });
    for (const [i, expected] of answers.entries()) {
      const answer = recorder.sessionUpdate(launch(`t${i}`));
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toBe(expected);
    }
  });
});
