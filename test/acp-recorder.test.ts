// The recorder never throws and never blocks: malformed updates, unknown sessions, a context
// that throws, rejects or is slow; and the writes of one ACP session keep their order when
// the host does not await them (the ACP SDKs do not). Both dialects, real stores.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, type AcpHostContext } from '../src/acp/index.js';
import { acpSessionOf, contextFor, HOST, loadAcpFixture } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const S = 'acp-1';
const launch = (toolCallId: string, extra: Record<string, unknown> = {}) => ({
  sessionId: S,
  update: { sessionUpdate: 'tool_call', toolCallId, title: 'task', kind: 'think', status: 'pending', rawInput: {}, ...extra },
});

function captureLogger() {
  const warnings: { fields: object; msg: string }[] = [];
  return { warnings, logger: { warn: (fields: object, msg: string) => void warnings.push({ fields, msg }) } };
}

describeBothDialects('ACP recorder', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('an update that is not a subagent, or not an update, resolves undefined and writes nothing', async () => {
    const store = db.store();
    const recorder = createAcpRecorder(store, { context: contextFor(S) });
    const inputs = [
      null,
      'x',
      {},
      { sessionId: S, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } } },
      { sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 'r', title: 'Read', kind: 'read' } },
    ];
    for (const input of inputs) expect(await recorder.sessionUpdate(input as never)).toBeUndefined();
    expect(recorder.counters()).toMatchObject({ updates: 5, not_subagent: 5, recorded: 0 });
    expect(store.counters().attempted).toBe(0);
  });

  it('an unknown ACP session is skipped_no_identity, and the store counts it (never lost silently)', async () => {
    const store = db.store();
    const recorder = createAcpRecorder(store, { context: () => undefined });
    expect(await recorder.sessionUpdate(launch('t1'))).toBe('skipped_no_identity');
    expect(recorder.counters()).toMatchObject({ unknown_session: 1, recorded: 0 });
    expect(store.counters()).toMatchObject({ attempted: 1, skipped_no_identity: 1 });
    expect(await store.listBySession('s1')).toEqual([]);
  });

  it('a context that throws or rejects fails that update with a WARN; the next update is written', async () => {
    const { warnings, logger } = captureLogger();
    let calls = 0;
    const context = (id: string): AcpHostContext | Promise<AcpHostContext> => {
      calls++;
      if (calls === 1) throw new Error('host lookup broke');
      if (calls === 2) return Promise.reject(new Error('host lookup rejected'));
      return contextFor(S)(id)!;
    };
    const recorder = createAcpRecorder(db.store(), { context, logger });
    expect(await recorder.sessionUpdate(launch('t1'))).toBe('failed');
    expect(await recorder.sessionUpdate(launch('t2'))).toBe('failed');
    expect(await recorder.sessionUpdate(launch('t3'))).toBe('persisted');
    expect(recorder.counters()).toMatchObject({ context_failed: 2, recorded: 1 });
    expect(warnings.map((w) => w.fields)).toEqual([
      expect.objectContaining({ acpSessionId: S, toolCallId: 't1', error: 'host lookup broke' }),
      expect.objectContaining({ acpSessionId: S, toolCallId: 't2', error: 'host lookup rejected' }),
    ]);
  });

  it('a context that never answers fails the update after contextTimeoutMs; later updates of the session proceed', async () => {
    const { warnings, logger } = captureLogger();
    let first = true;
    const context = (): Promise<AcpHostContext> => {
      if (first) {
        first = false;
        return new Promise(() => {}); // never settles
      }
      return Promise.resolve(HOST);
    };
    const recorder = createAcpRecorder(db.store(), { context, logger, contextTimeoutMs: 50 });
    const t0 = performance.now();
    const [a, b] = await Promise.all([recorder.sessionUpdate(launch('t1')), recorder.sessionUpdate(launch('t2'))]);
    expect([a, b]).toEqual(['failed', 'persisted']);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(recorder.counters().context_timeout).toBe(1);
    expect(warnings).toHaveLength(1);
  });

  it('a host answer whose getter throws fails that update with a WARN, on the synchronous path too: sessionUpdate never throws', async () => {
    const { warnings, logger } = captureLogger();
    const broken = {
      taskId: HOST.taskId,
      get sessionId(): string {
        throw new Error('host object broke');
      },
    };
    let calls = 0;
    const recorder = createAcpRecorder(db.store(), { context: () => (calls++ === 0 ? (broken as AcpHostContext) : HOST), logger });
    let first: Promise<unknown> | undefined;
    expect(() => (first = recorder.sessionUpdate(launch('t1')))).not.toThrow();
    expect(await first).toBe('failed');
    expect(await recorder.sessionUpdate(launch('t2'))).toBe('persisted');
    expect(recorder.counters()).toMatchObject({ context_failed: 1, recorded: 1 });
    expect(warnings.map((w) => w.fields)).toEqual([expect.objectContaining({ toolCallId: 't1', error: 'host object broke' })]);
  });

  it('a contextTimeoutMs of Infinity or beyond a timer (2^31 - 1 ms) waits for the context; NaN is the default', async () => {
    // Node fires a setTimeout beyond its range after 1 ms: every async context failed.
    const slow = () => new Promise<AcpHostContext>((resolve) => setTimeout(() => resolve(HOST), 30));
    for (const [i, contextTimeoutMs] of [Infinity, 3e9, Number.NaN].entries()) {
      const recorder = createAcpRecorder(db.store(), { context: slow, contextTimeoutMs });
      expect(await recorder.sessionUpdate(launch(`t${i}`)), String(contextTimeoutMs)).toBe('persisted');
      expect(recorder.counters().context_timeout).toBe(0);
    }
  });

  it("an unrecognized delegation's title is warned and remembered clipped to 256 characters", async () => {
    const { warnings, logger } = captureLogger();
    const recorder = createAcpRecorder(db.store(), { context: contextFor(S), logger });
    const title = `Spawn agent ${'x'.repeat(1_000_000)}`;
    const lookalike = (id: string) => ({ sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: id, kind: 'other', title } });
    expect(await recorder.sessionUpdate(lookalike('u1'))).toBeUndefined();
    expect(await recorder.sessionUpdate(lookalike('u2'))).toBeUndefined();
    expect(recorder.counters().unrecognized_delegations).toBe(2);
    expect(warnings).toHaveLength(1); // one WARN per distinct title, the clipped one
    const warned = (warnings[0].fields as { title: string }).title;
    expect(warned).toBe(`${title.slice(0, 256)}… (${title.length} characters)`);
  });

  it.each(['title', 'kind', 'tool name', 'tool call id'] as const)(
    'the remembered WARNs of unrecognized delegations hold no megabyte an agent sent in a %s',
    async (where) => {
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const heapMiB = () => {
        gc();
        gc();
        return process.memoryUsage().heapUsed / 2 ** 20;
      };
      const { warnings, logger } = captureLogger();
      const recorder = createAcpRecorder(db.store(), { context: contextFor(S), logger });
      const before = heapMiB();
      for (let i = 0; i < 48; i++) {
        // Each string its own megabyte, joined from its parts as a host that decodes a stream in chunks would.
        const big = `Spawn agent ${i} ` + 'x'.repeat(1_000_000);
        const update =
          where === 'title'
            ? { sessionUpdate: 'tool_call', toolCallId: `u${i}`, kind: 'other', title: big }
            : where === 'kind'
              ? { sessionUpdate: 'tool_call', toolCallId: `u${i}`, kind: big }
              : where === 'tool name'
                ? { sessionUpdate: 'tool_call', toolCallId: `u${i}`, _meta: { toolName: big } }
                : { sessionUpdate: 'tool_call', toolCallId: big, kind: 'other', title: `Spawn agent ${i}` };
        expect(await recorder.sessionUpdate({ sessionId: S, update })).toBeUndefined();
      }
      expect(recorder.counters().unrecognized_delegations).toBe(48);
      expect(warnings).toHaveLength(48); // each distinct, each warned once
      for (const w of warnings) expect(JSON.stringify(w.fields).length).toBeLessThan(600); // the log line clipped too
      warnings.length = 0; // the test's own copies of the log lines
      // 48 MiB were sent; the recorder keeps a few hundred characters of each. (A title's cut
      // held its whole title in a process of its own, not in this worker: the kind, the tool
      // name and the id are the cases that fail here without the copies and the digest.)
      expect(heapMiB() - before).toBeLessThan(8);
      expect(recorder.counters().unrecognized_delegations).toBe(48); // the recorder still alive when the heap is read
    },
  );

  it('a title cut inside a surrogate pair is cut before it: the warned title is well-formed text', async () => {
    const { warnings, logger } = captureLogger();
    const recorder = createAcpRecorder(db.store(), { context: contextFor(S), logger });
    const title = `Spawn agent ${'x'.repeat(243)}${'😀'.repeat(100)}`; // 255 units, then a pair across the 256th
    expect(await recorder.sessionUpdate({ sessionId: S, update: { sessionUpdate: 'tool_call', toolCallId: 'u1', kind: 'other', title } })).toBeUndefined();
    const warned = (warnings[0].fields as { title: string }).title;
    expect(warned).toBe(`${title.slice(0, 255)}… (${title.length} characters)`);
    expect(Buffer.from(warned, 'utf8').toString('utf8')).toBe(warned); // a lone surrogate would come back as U+FFFD
  });

  it('recorded traffic given without awaiting, with a slow async context: every row ends settled with every field', async () => {
    const store = db.store({ clock: steppingClock() });
    const name = 'claude-fanout';
    let n = 0;
    // Each answer takes a different time: later updates would overtake earlier ones without the per-session chain.
    const context = (id: string) =>
      new Promise<AcpHostContext | undefined>((resolve) => setTimeout(() => resolve(contextFor(acpSessionOf(name))(id)), (7 - (n++ % 7)) * 3));
    const recorder = createAcpRecorder(store, { context });
    const outcomes = await Promise.all(loadAcpFixture(name).map((u) => recorder.sessionUpdate(u)));
    expect(outcomes.filter((o) => o !== undefined).every((o) => o === 'persisted')).toBe(true);
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(5);
    for (const row of rows)
      expect(row).toMatchObject({ tool_status: 'completed', settled_at: expect.any(String), description: expect.any(String), agent_id: expect.any(String) });
    expect(rows.filter((r) => r.total_tokens === 150)).toHaveLength(4);
  });

  it('writes of one session land in the order given even when an earlier context answers later (a partial input never wins)', async () => {
    const store = db.store({ clock: steppingClock() });
    let n = 0;
    const context = () => new Promise<AcpHostContext>((resolve) => setTimeout(() => resolve(HOST), n++ === 0 ? 40 : 0));
    const recorder = createAcpRecorder(store, { context });
    const update = (description: string) => ({
      sessionId: S,
      update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', rawInput: { description }, _meta: { claudeCode: { toolName: 'Agent' } } },
    });
    // Claude sends the input partial, then full: the later (fuller) one must be the row's.
    expect(await Promise.all([recorder.sessionUpdate(update('Rev')), recorder.sessionUpdate(update('Review auth'))])).toEqual(['persisted', 'persisted']);
    expect((await store.listBySession('s1')).map((r) => r.description)).toEqual(['Review auth']);
  });

  it("a store that throws or rejects (not this package's) fails that update; the chain goes on and never rejects", async () => {
    const real = db.store();
    let calls = 0;
    // recordFrame as a foreign store might write it: the first call throws, the second rejects.
    const flaky = new Proxy(real, {
      get(target, key, receiver) {
        if (key !== 'recordFrame') return Reflect.get(target, key, receiver);
        return (...args: Parameters<typeof real.recordFrame>) => {
          calls++;
          if (calls === 1) throw new Error('store broke');
          if (calls === 2) return Promise.reject(new Error('store rejected'));
          return real.recordFrame(...args);
        };
      },
    });
    const recorder = createAcpRecorder(flaky, { context: contextFor(S) });
    // Handed over without awaiting, as the ACP SDKs do: each settles in order, none rejects.
    const outcomes = ['t1', 't2', 't3'].map((id) => recorder.sessionUpdate(launch(id)));
    expect(await Promise.all(outcomes)).toEqual(['failed', 'failed', 'persisted']);
    await recorder.flush();
    expect((await real.listBySession('s1')).map((r) => r.tool_call_id)).toEqual(['t3']);
  });

  it('flush() resolves once every update handed over (not awaited) is written', async () => {
    const store = db.store();
    const recorder = createAcpRecorder(store, { context: () => new Promise<AcpHostContext>((resolve) => setTimeout(() => resolve(HOST), 5)) });
    for (const id of ['t1', 't2', 't3']) void recorder.sessionUpdate(launch(id, { status: 'completed' }));
    await recorder.flush();
    expect((await store.listBySession('s1')).map((r) => r.tool_call_id)).toEqual(['t1', 't2', 't3']);
    await recorder.flush(); // nothing pending: resolves at once
  });

  it('a huge title and a context without execution or turn: persisted, the execution is the unknown sentinel', async () => {
    const store = db.store();
    const recorder = createAcpRecorder(store, { context: () => ({ sessionId: 's1', taskId: 'task-1' }) });
    const description = 'd'.repeat(1_000_000);
    expect(
      await recorder.sessionUpdate({
        sessionId: S,
        update: { sessionUpdate: 'tool_call', toolCallId: 'big', title: `sub-agent-x: ${description}`, status: 'completed' },
      }),
    ).toBe('persisted');
    const [row] = await store.listBySession('s1');
    expect(row).toMatchObject({ agent_execution_id: 'unknown', turn_id: null, subagent_type: 'x', tool_status: 'completed' });
    expect(row.description?.length).toBe(1_000_000);
    expect(store.counters().unknown_execution).toBe(1);
  });
});
