// Seeded random frame sequences for the model-based tests: many keys, repeated keys,
// out-of-order terminal frames, zeros, negatives, empties, wrong types, reused executions,
// missing identities, frames for a session that does not exist, and a clock that repeats,
// steps below a microsecond and goes backwards. Same seed, same sequence.
import { EXTENSION_TEXT_COLUMNS } from './merge-model.js';
import { prng } from './prng.js';

const ABSENT = Symbol('absent');

// Byte order differs from UTF-16 order for the last two (U+FF21 sorts before U+1D4B3 in
// UTF-8, after it in UTF-16), so AC-13's tiebreak is exercised on real ordering differences.
const TOOL_CALLS = ['toolu_01A', 'toolu_01B', 'toolu_02', 'call_é', 'call_\uFF21', 'call_\u{1D4B3}', 'T'];
// Ids over 512 UTF-8 bytes are not recordable (not indexable on PostgreSQL, src/identity.ts):
// 257 × 'é' is 514 bytes, one past the limit (a skipped identity, an absent turn, a digested
// execution id); 256 × 'é' (a turn below) is exactly 512 and is kept.
const LONG_ID = 'é'.repeat(257);
const EXECUTIONS = ['0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11', 'a91c3f0e-2b7d-4e8a-8c1f-5d6e7f809a1b', '', null, ABSENT, 'unknown', LONG_ID];
const TURNS = [ABSENT, null, '', 'turn-1', 'turn-2', 'turn-3', LONG_ID, 'é'.repeat(256)];
const TOOL_STATUSES = [
  ABSENT,
  null,
  '',
  'pending',
  'in_progress',
  'COMPLETED',
  'Completed',
  'canceled',
  'done',
  'complete',
  'completed',
  'success',
  'error',
  'failed',
  'cancelled',
];
const AGENT_STATUSES = [ABSENT, '', 'async_launched', 'completed', 'started', 'provider_specific_status', 7];
const TEXTS = [ABSENT, ABSENT, null, '', 'value-a', 'value-b', 'claude-opus-5[1m]', 42, { text: 'x' }, 'nul\u0000byte', 'lone\uD800surrogate', 'ünïcødé ✓ 𝒳'];
const METRICS = [
  ABSENT,
  ABSENT,
  null,
  0,
  -0,
  0n,
  1,
  17,
  275_717,
  2n ** 53n + 1n,
  2 ** 60,
  9_223_372_036_854_775_807n,
  9_223_372_036_854_775_808n,
  -1,
  -5n,
  1.5,
  '12',
  NaN,
  Infinity,
  -Infinity,
  1e30,
  true,
  {},
  [3],
];
const ASYNC = [ABSENT, ABSENT, true, false, 'true', 1];

function maybe(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== ABSENT) target[key] = value;
}

export interface GeneratedSequence {
  frames: unknown[];
  /** Turn ids worth reading back with listByTurn: a plain one and the longest usable one. */
  turns: string[];
}

/**
 * One sequence of frames for `sessionId`. About one frame in twelve has a broken identity and
 * about one in forty names `missingSessionId` (no host row: the write fails on the foreign key).
 */
export function randomSequence(seed: number, sessionId: string, missingSessionId: string): GeneratedSequence {
  const rng = prng(seed);
  const toolCalls = TOOL_CALLS.filter(() => rng.chance(0.6));
  if (toolCalls.length === 0) toolCalls.push('toolu_only');
  const count = 5 + Math.floor(rng.next() * 26);
  const frames: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const frame: Record<string, unknown> = {
      sessionId: rng.next() < 0.025 ? missingSessionId : sessionId,
      taskId: rng.next() < 0.15 ? 'task-2' : 'task-1', // task_id is write-once: a later task id never rewrites it
      toolCallId: rng.pick(toolCalls),
    };
    maybe(frame, 'executionId', rng.pick(EXECUTIONS));
    maybe(frame, 'turnId', rng.pick(TURNS));
    maybe(frame, 'parentToolCallId', rng.pick([ABSENT, ABSENT, '', 'toolu_parent']));
    maybe(frame, 'toolStatus', rng.pick(TOOL_STATUSES));
    if (rng.next() < 0.08) {
      // AC-2: one identity broken in one of several ways
      const broken = rng.pick(['sessionId', 'taskId', 'toolCallId']);
      const how = rng.pick([ABSENT, '', null, 5, 'nul\u0000id', LONG_ID]);
      if (how === ABSENT) delete frame[broken];
      else frame[broken] = how;
    }
    const shape = rng.next();
    if (shape < 0.03) frame.payload = null;
    else if (shape < 0.05) frame.payload = 'not an object';
    else if (shape < 0.07) {
      // no payload at all
    } else {
      const payload: Record<string, unknown> = {};
      for (const key of ['description', 'subagent_type', 'agent_id', 'child_session_id', 'model']) maybe(payload, key, rng.pick(TEXTS));
      maybe(payload, 'status', rng.pick(AGENT_STATUSES));
      for (const key of ['total_tokens', 'tool_use_count', 'duration_ms']) maybe(payload, key, rng.pick(METRICS));
      maybe(payload, 'is_async', rng.pick(ASYNC));
      maybe(payload, 'prompt', rng.pick([ABSENT, 'a prompt that is never stored']));
      // A text column beyond the spec's (docs/recipes.md) is drawn like the others, from its tag.
      for (const [, object, key] of EXTENSION_TEXT_COLUMNS) maybe(object === 'payload' ? payload : frame, key, rng.pick(TEXTS));
      frame.payload = payload;
    }
    frames.push(frame);
  }
  return { frames, turns: ['turn-1', 'é'.repeat(256)] };
}

/**
 * A deterministic clock for one sequence: steps of 0 (ties), below a microsecond (ties after
 * truncation), a few microseconds to seconds, and occasionally backwards. Two clocks from the
 * same seed return the same instants in the same order.
 */
export function randomClock(seed: number): () => bigint {
  const rng = prng(seed ^ 0x5eed);
  let t = 1_785_000_000_000_000_000n + BigInt(Math.floor(rng.next() * 1e9)) * 1000n;
  return () => {
    const step = rng.pick([0n, 0n, 1n, 999n, 1000n, 1001n, 7_000n, 1_234_567n, 2_000_000_000n, -5_000n]);
    t += step;
    return t;
  };
}

/** Splits frames into consecutive chunks of 1..maxChunk, for recordFrames. */
export function randomChunks<T>(seed: number, items: readonly T[], maxChunk = 8): T[][] {
  const rng = prng(seed ^ 0xc4a2);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length;) {
    const size = 1 + Math.floor(rng.next() * maxChunk);
    chunks.push(items.slice(i, i + size));
    i += size;
  }
  return chunks;
}
