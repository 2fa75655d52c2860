// The proxy merges a batch's frames of one tool call before they reach the store
// (src/proxy/coalesce-frames.ts) only where that is provably the same as applying them in
// order. Proof by replay, on both dialects: seeded sequences — the model test's hostile random
// frames and the accumulating ones a recognizer emits (each update a superset of the last,
// statuses advancing, a terminal status repeated or followed by a late one) — are applied to
// two sessions from the same starting rows (a random prefix written frame by frame): one
// session frame by frame, the other coalesced and through recordFrames. Every column of every
// row (apart from the generated id) and every frame's outcome must agree, at one instant per
// batch as the proxy writes. The test also checks that merges really happened.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { coalesceFrames } from '../src/proxy/coalesce-frames.js';
import type { SubagentContextRow, SubagentFrame } from '../src/types.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { randomSequence } from './helpers/live-random-frames.js';
import { prng } from './helpers/prng.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SEQUENCES = 150;
const AT = 1_785_000_000_123_456_789n;

/** What a recognizer emits for a few calls, interleaved: each frame carries everything learned so far. */
function accumulating(seed: number, sessionId: string): SubagentFrame[] {
  const rng = prng(seed);
  const frames: SubagentFrame[] = [];
  const calls = Array.from({ length: 1 + rng.int(4) }, (_, i) => ({
    toolCallId: `call_${i}`,
    payload: {} as Record<string, unknown>,
    status: 'pending' as string | null,
    turn: rng.pick([null, 'turn-1']),
  }));
  const count = 4 + rng.int(20);
  for (let i = 0; i < count; i++) {
    const call = rng.pick(calls);
    const field = rng.pick([
      'description',
      'subagent_type',
      'model',
      'agent_id',
      'child_session_id',
      'status',
      'total_tokens',
      'tool_use_count',
      'duration_ms',
      'is_async',
      'none',
    ]);
    if (field === 'total_tokens' || field === 'duration_ms' || field === 'tool_use_count') call.payload[field] = rng.pick([0, 5, 120, -1, 1.5, 9_000]);
    else if (field === 'is_async') call.payload.is_async = rng.chance(0.7);
    else if (field !== 'none') call.payload[field] = rng.pick(['a', 'b', '']);
    if (rng.chance(0.1)) delete call.payload[rng.pick(Object.keys(call.payload).concat('model'))]; // a field the next update lacks
    call.status = rng.pick([call.status, call.status, 'in_progress', 'completed', 'failed', null]);
    frames.push({
      sessionId,
      taskId: rng.chance(0.05) ? 'task-2' : 'task-1',
      turnId: rng.chance(0.1) ? rng.pick([null, 'turn-2']) : call.turn,
      executionId: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11',
      toolCallId: call.toolCallId,
      parentToolCallId: rng.chance(0.2) ? 'toolu_parent' : null,
      toolStatus: call.status,
      payload: { ...call.payload },
    });
  }
  return frames;
}

describeBothDialects('proxy: coalescing a batch is the same as applying it in order', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => db.close());

  const strip = (rows: SubagentContextRow[]) => rows.map(({ id: _id, task_session_id: _s, ...rest }) => rest);

  it(`${SEQUENCES} seeded sequences of each kind: the same rows and outcomes either way`, async () => {
    const store = db.store({ clock: () => AT, logger: { warn: () => {} } });
    let merged = 0;
    let frames = 0;
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      for (const kind of ['random', 'accumulating'] as const) {
        const make = (session: string) =>
          (kind === 'random' ? randomSequence(seed, session, `${session}-missing`).frames : accumulating(seed, session)) as SubagentFrame[];
        const [inOrder, coalesced] = [`${kind}-${seed}-a`, `${kind}-${seed}-b`];
        for (const s of [inOrder, coalesced]) await insertSession(db, s, 'task-1');
        const a = make(inOrder);
        const b = make(coalesced);
        const prefix = prng(seed ^ 0x77).int(Math.ceil(a.length / 2)); // the rows a batch finds: absent, open or settled
        for (let i = 0; i < prefix; i++) {
          await store.recordFrame(a[i]);
          await store.recordFrame(b[i]);
        }
        const expected: string[] = [];
        for (const frame of a.slice(prefix)) expected.push(await store.recordFrame(frame));
        const batch = coalesceFrames(b.slice(prefix));
        const outcomes = await store.recordFrames(batch.frames);
        const context = `${kind} seed ${seed} (prefix ${prefix})`;
        expect(strip(await store.listBySession(coalesced)), context).toEqual(strip(await store.listBySession(inOrder)));
        expect(
          batch.carrier.map((c) => outcomes[c]),
          context,
        ).toEqual(expected);
        merged += b.length - prefix - batch.frames.length;
        frames += b.length - prefix;
      }
    }
    // Not vacuous: a good share of the frames were merged away.
    expect(merged).toBeGreaterThan(frames / 10);
  });
});
