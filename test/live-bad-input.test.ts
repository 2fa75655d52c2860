// Hostile frames on the live path, on both dialects: recordFrame never throws or rejects,
// never writes a fabricated value (no 0 where nothing was reported, no inherited or coerced
// value), and the counters stay consistent. The wrong-type rule under test (documented in
// src/frame-normalization.ts and docs/live-capture.md): a value of the wrong type is treated
// as not reported; for a metric it also counts anomalous_value.
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SubagentContextRow } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

const MB = 1 << 20;
const BIG_MODEL = 'm'.repeat(MB);
const BIG_DESCRIPTION = 'é✓𝒳'.repeat(MB / 8);

type Case = {
  name: string;
  /** The frame; its toolCallId (when it has one) is unique to the case. */
  input: unknown;
  outcome: 'persisted' | 'skipped_no_identity' | 'failed';
  anomalous?: boolean;
  /** Columns the stored row must hold (persisted cases). */
  row?: Partial<SubagentContextRow>;
};

const metricCases: Case[] = (
  [
    ['a numeric string', '1200'],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['1e30', 1e30],
    ['a fraction', 1.5],
    ['2^63 as a bigint', 2n ** 63n],
    ['a boolean', true],
    ['an object', { value: 3 }],
    ['an array', [3]],
    ['a negative bigint', -7n],
  ] as const
).map(([name, value]) => ({
  name: `metrics given ${name}`,
  input: frame({
    toolCallId: `metric ${name}`,
    payload: { total_tokens: value as never, tool_use_count: value as never, duration_ms: value as never, model: 'kept' },
  }),
  outcome: 'persisted',
  anomalous: true,
  row: { total_tokens: null, tool_use_count: null, duration_ms: null, model: 'kept' },
}));

const cases: Case[] = [
  ...metricCases,
  {
    name: '-0',
    input: frame({ toolCallId: 'minus zero', payload: { total_tokens: -0, tool_use_count: -0, duration_ms: -0 } }),
    outcome: 'persisted',
    row: { total_tokens: null, tool_use_count: 0, duration_ms: null },
  },
  {
    name: 'wrong-typed text fields',
    input: frame({
      toolCallId: 'wrong text',
      turnId: 7 as never,
      parentToolCallId: {} as never,
      toolStatus: ['completed'] as never,
      payload: { model: 5 as never, description: true as never, status: { s: 1 } as never, subagent_type: null as never },
    }),
    outcome: 'persisted',
    row: {
      turn_id: null,
      parent_tool_call_id: null,
      tool_status: null,
      settled_at: null,
      model: null,
      description: null,
      agent_status: null,
      subagent_type: null,
    },
  },
  {
    name: '1 MB text values',
    input: frame({ toolCallId: 'big text', payload: { model: BIG_MODEL, description: BIG_DESCRIPTION } }),
    outcome: 'persisted',
    row: { model: BIG_MODEL, description: BIG_DESCRIPTION },
  },
  { name: 'a 1 MB tool call id', input: frame({ toolCallId: randomBytes(MB).toString('base64') }), outcome: 'skipped_no_identity' },
  { name: 'a 1 MB turn id', input: frame({ toolCallId: 'big turn', turnId: 't'.repeat(MB) }), outcome: 'persisted', row: { turn_id: null } },
  {
    // Beyond the identity bound (src/identity.ts) an execution id is keyed by its digest: still its own row (AC-32).
    name: 'a 1 MB execution id',
    input: frame({ toolCallId: 'big execution', executionId: 'e'.repeat(MB) }),
    outcome: 'persisted',
    row: { agent_execution_id: `sha256:${createHash('sha256').update('e'.repeat(MB), 'utf8').digest('hex')}` },
  },
  {
    name: 'NUL bytes in text',
    input: frame({ toolCallId: 'nul text', payload: { model: 'a\u0000b', description: '\u0000' } }),
    outcome: 'persisted',
    row: { model: null, description: null },
  },
  { name: 'a NUL byte in the tool call id', input: frame({ toolCallId: 'nul\u0000id' }), outcome: 'skipped_no_identity' },
  {
    name: 'lone surrogates',
    input: frame({ toolCallId: 'surrogates', payload: { model: 'x\uD800', description: '\uDC00y' } }),
    outcome: 'persisted',
    row: { model: null, description: null },
  },
  {
    name: 'missing payload',
    input: (({ payload: _p, ...rest }) => ({ ...rest, toolCallId: 'no payload' }))(frame()),
    outcome: 'persisted',
    row: { model: null, total_tokens: null, tool_use_count: null, duration_ms: null, is_async: false },
  },
  {
    name: 'a null payload',
    input: frame({ toolCallId: 'null payload', payload: null as never }),
    outcome: 'persisted',
    row: { model: null, tool_use_count: null },
  },
  {
    name: 'a string payload',
    input: frame({ toolCallId: 'string payload', payload: '{"total_tokens": 5}' as never }),
    outcome: 'persisted',
    row: { total_tokens: null },
  },
  { name: 'an array payload', input: frame({ toolCallId: 'array payload', payload: [1, 2] as never }), outcome: 'persisted', row: { total_tokens: null } },
  { name: 'a null frame', input: null, outcome: 'skipped_no_identity' },
  { name: 'an undefined frame', input: undefined, outcome: 'skipped_no_identity' },
  { name: 'a string frame', input: 'sessionId=s1', outcome: 'skipped_no_identity' },
  { name: 'a number frame', input: 42, outcome: 'skipped_no_identity' },
  { name: 'an array frame', input: ['s1', 'task-1', 'toolu'], outcome: 'skipped_no_identity' },
  {
    name: 'identity only on the prototype',
    input: Object.create({ sessionId: 's1', taskId: 'task-1', toolCallId: 'inherited', payload: {} }),
    outcome: 'skipped_no_identity',
  },
  {
    name: 'a JSON __proto__ key',
    input: JSON.parse('{"__proto__": {"sessionId": "s1", "taskId": "task-1"}, "toolCallId": "proto json", "payload": {"__proto__": {"total_tokens": 9}}}'),
    outcome: 'skipped_no_identity',
  },
  {
    name: 'a JSON __proto__ key in the payload only',
    input: JSON.parse(
      '{"sessionId": "s1", "taskId": "task-1", "toolCallId": "proto payload", "payload": {"__proto__": {"total_tokens": 9, "model": "inherited"}}}',
    ),
    outcome: 'persisted',
    row: { total_tokens: null, model: null },
  },
  {
    name: 'a payload inheriting its values',
    input: frame({ toolCallId: 'inherited payload', payload: Object.create({ model: 'inherited', tool_use_count: 3 }) }),
    outcome: 'persisted',
    row: { model: null, tool_use_count: null },
  },
  {
    name: 'a throwing getter on the frame',
    input: Object.defineProperty(frame({ toolCallId: 'getter' }), 'toolStatus', {
      enumerable: true,
      get: () => {
        throw new Error('getter exploded');
      },
    }),
    outcome: 'failed',
  },
  {
    name: 'a throwing getter on the payload',
    input: frame({
      toolCallId: 'payload getter',
      payload: Object.defineProperty({}, 'model', {
        enumerable: true,
        get: () => {
          throw new Error('getter exploded');
        },
      }),
    }),
    outcome: 'failed',
  },
  {
    name: 'a proxy that throws on every trap',
    input: new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        has: () => {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('trap');
        },
      },
    ),
    outcome: 'failed',
  },
];

describeBothDialects('live bad input', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const rowOf = (rows: SubagentContextRow[], c: Case) => rows.find((r) => r.tool_call_id === (c.input as { toolCallId?: string }).toolCallId);

  for (const mode of ['recordFrame', 'recordFrames'] as const) {
    it(`${mode}: hostile frames never throw, never fabricate, and keep the counters consistent`, async () => {
      const logger = recordingLogger();
      const store = db.store({ clock: steppingClock(), logger });
      let outcomes: string[];
      if (mode === 'recordFrame') {
        outcomes = [];
        for (const c of cases) outcomes.push(await store.recordFrame(c.input as never));
      } else {
        outcomes = await store.recordFrames(cases.map((c) => c.input) as never);
      }
      expect(Object.fromEntries(cases.map((c, i) => [c.name, outcomes[i]]))).toEqual(Object.fromEntries(cases.map((c) => [c.name, c.outcome])));

      const rows = await store.listBySession('s1');
      const persisted = cases.filter((c) => c.outcome === 'persisted');
      expect(rows).toHaveLength(persisted.length);
      for (const c of persisted) expect(rowOf(rows, c), c.name).toMatchObject(c.row ?? {});
      // No fabricated zero anywhere: the only stored 0 is the reported -0 tool count.
      expect(rows.filter((r) => r.total_tokens === 0 || r.duration_ms === 0)).toEqual([]);
      expect(rows.filter((r) => r.tool_use_count === 0).map((r) => r.tool_call_id)).toEqual(['minus zero']);

      const count = (o: string) => cases.filter((c) => c.outcome === o).length;
      expect(store.counters()).toEqual({
        attempted: cases.length,
        persisted: count('persisted'),
        skipped_no_identity: count('skipped_no_identity'),
        failed: count('failed'),
        anomalous_value: cases.filter((c) => c.anomalous).length,
        unknown_execution: 1, // the JSON frame that carries no execution id (the 1 MB one is digested, not unknown)
        ledger_failed: 0,
      });
      // Unreadable frames are logged, with bounded identity fields.
      expect(logger.lines).toHaveLength(count('failed'));
      for (const line of logger.lines) expect(String(line.fields.tool_call_id ?? '').length).toBeLessThanOrEqual(512);
    });
  }

  it('a polluted Object.prototype fabricates neither an identity nor a value', async () => {
    const store = db.store({ clock: steppingClock() });
    const proto = Object.prototype as Record<string, unknown>;
    const keys = ['sessionId', 'taskId', 'toolCallId', 'model', 'total_tokens', 'tool_use_count', 'is_async', 'toolStatus'];
    Object.assign(proto, {
      sessionId: 's1',
      taskId: 'task-1',
      toolCallId: 'polluted',
      model: 'polluted',
      total_tokens: 5,
      tool_use_count: 0,
      is_async: true,
      toolStatus: 'completed',
    });
    let bare: string, withIdentity: string;
    try {
      bare = await store.recordFrame({ payload: {} } as never);
      withIdentity = await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'clean', payload: {} });
    } finally {
      for (const k of keys) delete proto[k];
    }
    expect([bare, withIdentity]).toEqual(['skipped_no_identity', 'persisted']);
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.model, r.total_tokens, r.tool_use_count, r.is_async, r.tool_status, r.settled_at])).toEqual([
      ['clean', null, null, null, false, null, null],
    ]);
  });
});
