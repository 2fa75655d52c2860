// Fuzzing the live path (issue 7): 10,000 frames per dialect with hostile values in every
// field. Nothing may throw or reject, nothing may be fabricated (no value in a row that no
// frame for that key actually reported in a usable form), and AC-26's counter identity holds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SubagentContextRow, SubagentFrame } from '../../src/index.js';
import { steppingClock } from '../helpers/clock.js';
import { prng, type Prng } from '../helpers/prng.js';
import { describeBothDialects, openTestDb, type TestDb } from '../helpers/test-db.js';
import { insertSession } from '../helpers/seed-host-rows.js';

const FRAMES = 10_000;
const SEED = 0x5eed_f022;
const SESSIONS = ['s-a', 's-b', 's-c'];

const HOSTILE_SCALARS: readonly unknown[] = [
  undefined,
  null,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'ñ漢字🙂',
  '\ud800',
  "'; DROP TABLE task_session_subagents; --",
  NaN,
  Infinity,
  -Infinity,
  1e30,
  -0,
  0,
  -1,
  1.5,
  2 ** 53,
  2 ** 63,
  9223372036854775807n,
  9223372036854775808n,
  -5n,
  true,
  false,
  {},
  [],
  [7],
  { valueOf: () => 5 },
  '123',
  '__proto__',
  new Date(0),
  () => 1,
  Symbol('s'),
];
const METRIC_VALUES: readonly unknown[] = [...HOSTILE_SCALARS, 1, 42, 275_717, 3n, 2n ** 62n];
const TEXT_VALUES: readonly unknown[] = [...HOSTILE_SCALARS, 'completed', 'async_launched', 'claude-opus-5[1m]', 'x'.repeat(4096)];

function maybe(r: Prng, values: readonly unknown[]): unknown {
  return r.chance(0.35) ? undefined : r.pick(values);
}

function hostileFrame(r: Prng): unknown {
  const roll = r.next();
  if (roll < 0.01) return r.pick([null, undefined, 'frame', 42, [], true]);
  const frame: Record<string, unknown> = {
    sessionId: r.chance(0.9) ? r.pick(SESSIONS) : r.pick(HOSTILE_SCALARS),
    taskId: r.chance(0.9) ? 'task-1' : r.pick(HOSTILE_SCALARS),
    toolCallId: r.chance(0.9) ? `toolu_${r.int(40)}` : r.pick(HOSTILE_SCALARS),
    executionId: r.chance(0.7) ? r.pick(['exec-a', 'exec-b', '']) : r.pick(HOSTILE_SCALARS),
    turnId: maybe(r, [...TEXT_VALUES, 'turn-1', 'turn-2']),
    parentToolCallId: maybe(r, TEXT_VALUES),
    toolStatus: maybe(r, [...TEXT_VALUES, 'pending', 'in_progress', 'completed', 'failed', 'error']),
  };
  if (roll < 0.03) return frame; // payload missing
  if (roll < 0.05) return { ...frame, payload: r.pick([null, 'payload', 7, []]) };
  if (roll < 0.06) return { ...frame, payload: JSON.parse('{"__proto__": {"model": "polluted", "total_tokens": 9}, "constructor": {"prototype": {"x": 1}}}') };
  if (roll < 0.07) {
    const trap = Object.create({ model: 'inherited', total_tokens: 77 });
    Object.defineProperty(trap, 'description', {
      enumerable: true,
      get() {
        throw new Error('hostile getter');
      },
    });
    return { ...frame, payload: trap };
  }
  if (roll < 0.075) return { ...frame, payload: { description: 'x'.repeat(1 << 20), total_tokens: 5 } };
  const payload: Record<string, unknown> = {};
  for (const f of ['description', 'prompt', 'subagent_type', 'status', 'agent_id', 'model', 'child_session_id', 'result_text', 'output_file']) {
    const v = maybe(r, TEXT_VALUES);
    if (v !== undefined) payload[f] = v;
  }
  for (const f of ['duration_ms', 'total_tokens', 'tool_use_count']) {
    const v = maybe(r, METRIC_VALUES);
    if (v !== undefined) payload[f] = v;
  }
  if (r.chance(0.5)) payload.is_async = r.pick([true, false, 1, 'true', null]);
  return { ...frame, payload };
}

/** Values a frame reported in a usable form, per key and column: the only values a row may hold. */
type Evidence = Map<string, Map<string, Set<string>>>;

/** The documented text rule: a non-empty string without NUL that is well-formed UTF-16. */
function usableText(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && !v.includes('\u0000') && Buffer.from(v, 'utf8').toString('utf8') === v ? v : undefined;
}
function usableMetric(v: unknown, zeroAllowed: boolean): string | undefined {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else return undefined;
  if (n < (zeroAllowed ? 0n : 1n) || n > 9223372036854775807n) return undefined;
  return n.toString();
}
function ownValue(obj: unknown, key: string): unknown {
  try {
    return obj && typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

function recordEvidence(evidence: Evidence, frame: unknown): void {
  const sid = usableText(ownValue(frame, 'sessionId'));
  const tid = usableText(ownValue(frame, 'taskId'));
  const tcid = usableText(ownValue(frame, 'toolCallId'));
  if (!sid || !tid || !tcid) return;
  const key = `${sid}|${usableText(ownValue(frame, 'executionId')) ?? 'unknown'}|${tcid}`;
  let cols = evidence.get(key);
  if (!cols) evidence.set(key, (cols = new Map()));
  const add = (col: string, v: string | undefined) => {
    if (v === undefined) return;
    let set = cols.get(col);
    if (!set) cols.set(col, (set = new Set()));
    set.add(v);
  };
  const payload = ownValue(frame, 'payload');
  add('task_id', tid);
  add('turn_id', usableText(ownValue(frame, 'turnId')));
  add('parent_tool_call_id', usableText(ownValue(frame, 'parentToolCallId')));
  add('tool_status', usableText(ownValue(frame, 'toolStatus')));
  add('agent_status', usableText(ownValue(payload, 'status')));
  for (const c of ['description', 'subagent_type', 'agent_id', 'child_session_id', 'model']) add(c, usableText(ownValue(payload, c)));
  add('total_tokens', usableMetric(ownValue(payload, 'total_tokens'), false));
  add('duration_ms', usableMetric(ownValue(payload, 'duration_ms'), false));
  add('tool_use_count', usableMetric(ownValue(payload, 'tool_use_count'), true));
  if (ownValue(payload, 'is_async') === true) add('is_async', 'true');
}

describeBothDialects('fuzzed frames', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    for (const s of SESSIONS) await insertSession(db, s, 'task-1');
  });
  afterAll(async () => db.close());

  it(`takes ${FRAMES} hostile frames without throwing, fabricating, or breaking the counter identity`, async () => {
    const r = prng(SEED);
    const warnings: object[] = [];
    const store = db.store({ clock: steppingClock(), logger: { warn: (fields) => void warnings.push(fields) } });
    const evidence: Evidence = new Map();
    const outcomes = { persisted: 0, skipped_no_identity: 0, failed: 0 };
    let sent = 0;
    while (sent < FRAMES) {
      const batch = Array.from({ length: Math.min(r.chance(0.5) ? 1 : 1 + r.int(40), FRAMES - sent) }, () => hostileFrame(r));
      batch.forEach((f) => recordEvidence(evidence, f));
      const results = batch.length === 1 ? [await store.recordFrame(batch[0] as SubagentFrame)] : await store.recordFrames(batch as SubagentFrame[]);
      for (const o of results) outcomes[o]++;
      sent += batch.length;
    }

    const c = store.counters();
    expect(c.attempted).toBe(FRAMES);
    expect(c.attempted).toBe(c.skipped_no_identity + c.persisted + c.failed);
    expect(c).toMatchObject(outcomes);
    expect(c.skipped_no_identity).toBeGreaterThan(0);
    expect(c.anomalous_value).toBeGreaterThan(0);
    expect(c.unknown_execution).toBeGreaterThan(0);
    expect(warnings).toHaveLength(c.failed);
    expect(({} as Record<string, unknown>).model).toBeUndefined(); // no prototype pollution

    const rows: SubagentContextRow[] = [];
    for (const s of SESSIONS) rows.push(...(await store.listBySession(s)));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const key = `${row.task_session_id}|${row.agent_execution_id}|${row.tool_call_id}`;
      const cols = evidence.get(key);
      expect(cols, `row ${key} has no frame with a usable identity`).toBeDefined();
      for (const col of [
        'task_id',
        'turn_id',
        'parent_tool_call_id',
        'tool_status',
        'agent_status',
        'description',
        'subagent_type',
        'agent_id',
        'child_session_id',
        'model',
        'total_tokens',
        'duration_ms',
        'tool_use_count',
      ] as const) {
        const value = row[col];
        if (value === null) continue;
        expect(cols!.get(col)?.has(String(value)), `${key}.${col} = ${String(value).slice(0, 40)} was never reported`).toBe(true);
      }
      if (row.is_async) expect(cols!.get('is_async')?.has('true')).toBe(true);
    }
    // Every key some frame identified usably and whose write succeeded has exactly one row.
    const keys = new Set(rows.map((row) => `${row.task_session_id}|${row.agent_execution_id}|${row.tool_call_id}`));
    expect(keys.size).toBe(rows.length);
  }, 180_000); // 10,000 frames: 38 s of the default 60 s in a loaded full run; room for more load
});
