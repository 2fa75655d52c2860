// Fuzzing identities (issue 11, item 6): incompressible ids from 1 byte to 10 KB — crypto-random
// base64, hex and multi-byte UTF-8 (test/helpers/incompressible-ids.ts), never `'a'.repeat(n)`,
// which PostgreSQL compresses under its btree limit — as session, task, turn, tool-call and
// execution ids, through history messages (the backfill) AND live frames with their messages, on
// both dialects. Whatever the lengths: the store activates, the backfill and the writer record
// exactly the recordable subagents (src/identity.ts), the shortfall is 0 afterwards, and no two
// executions share a row.
// Structure (which id is long, which shape, how many frames) comes from a seeded PRNG; the id
// bytes themselves from node:crypto.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACTIVATION_KEYS, type SubagentFrame } from '../../src/index.js';
import { steppingClock } from '../helpers/clock.js';
import { ID_SHAPES, incompressibleId, utf8Bytes } from '../helpers/incompressible-ids.js';
import { prng, type Prng } from '../helpers/prng.js';
import { describeBothDialects, openTestDb, type Dialect, type TestDb } from '../helpers/test-db.js';
import { byDialect } from '../helpers/by-dialect.js';
import { hostTimestamp, SECOND } from '../helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from '../helpers/seed-host-rows.js';

const SEED = 0x1d_b0_0d;
const HISTORY = 120;
const LIVE = 150;
const BOUND = 512; // the documented bound (docs/guarantees.md, "Identity bounds"), restated, not imported
const T0 = 1_785_000_000_000_000_000n;

/** A length from 1 byte to 10 KB: a third within the bound, some at its edge, the rest beyond. */
function idLength(r: Prng): number {
  const roll = r.next();
  if (roll < 0.3) return 1 + r.int(BOUND);
  if (roll < 0.4) return BOUND - 8 + r.int(17); // 504 … 520
  return BOUND + 1 + r.int(10 * 1024 - BOUND);
}
const randomId = (r: Prng, max = 10 * 1024) => incompressibleId(Math.min(idLength(r), max), r.pick(ID_SHAPES));
const recordable = (id: string) => utf8Bytes(id) >= 1 && utf8Bytes(id) <= BOUND;
/** An id as a failure message shows it: a long one by a hash and its length, not 10 KB of noise. */
const short = (id: string | null) =>
  id === null || id.length <= 40 ? id : `${createHash('sha256').update(id).digest('hex').slice(0, 12)}…(${utf8Bytes(id)} B)`;
const keyOf = (sessionId: string, toolCallId: string) => `${short(sessionId)} | ${short(toolCallId)}`;
const executionKey = (id: string | undefined) =>
  id === undefined ? 'unknown' : recordable(id) ? id : `sha256:${createHash('sha256').update(Buffer.from(id, 'utf8')).digest('hex')}`;

/**
 * Session ids: the host's own primary key must hold them, and a PostgreSQL btree entry cannot
 * exceed 2704 bytes, so a host on PostgreSQL cannot have a session id much beyond 2 KB; SQLite
 * can, up to the 10 KB of the other ids.
 */
function sessionIds(r: Prng, dialect: Dialect): string[] {
  const max = byDialect(dialect, { sqlite: 10 * 1024, postgres: 2048 });
  return ['s-plain', incompressibleId(BOUND, 'utf8'), incompressibleId(BOUND + 1, 'hex'), ...Array.from({ length: 5 }, () => randomId(r, max))];
}

describeBothDialects('fuzzed identities: incompressible ids of 1 byte to 10 KB', (dialect) => {
  let db: TestDb;
  const r = prng(SEED);
  let sessions: string[];
  /** history: the (session, tool call) keys the backfill must record, with the turn it keeps. */
  const backfillExpected = new Map<string, string | null>();

  beforeAll(async () => {
    db = await openTestDb(dialect);
    sessions = sessionIds(r, dialect);
    for (const s of sessions) await insertSession(db, s, 'task-1');
    for (let i = 0; i < HISTORY; i++) {
      const session = r.pick(sessions);
      const task = r.chance(0.7) ? 'task-1' : randomId(r);
      const turn = r.chance(0.5) ? `turn-${i % 7}` : randomId(r);
      const toolCall = r.chance(0.05) ? 4200 + i : randomId(r); // now and then a JSON number: never an id
      await insertMessage(db, {
        id: `m-history-${i}`,
        sessionId: session,
        taskId: task,
        turnId: turn,
        metadata: JSON.stringify({
          tool_call_id: toolCall,
          status: 'completed',
          normalized: { kind: 'subagent_task', subagent_task: { model: 'm', total_tokens: 10 } },
        }),
        createdAt: hostTimestamp(db, T0 + BigInt(i) * SECOND),
      });
      if (typeof toolCall === 'string' && recordable(session) && recordable(task) && recordable(toolCall)) {
        backfillExpected.set(keyOf(session, toolCall), short(recordable(turn) ? turn : null));
      }
    }
  }, 120_000);
  afterAll(async () => db.close());

  it('history: the backfill activates and records exactly the recordable messages', async () => {
    const warnings: object[] = [];
    const report = await db.store({ clock: steppingClock(T0 + 3600n * SECOND), logger: { warn: (f) => void warnings.push(f) } }).runMigrations();
    expect(warnings).toEqual([]);
    expect(report.ok).toBe(true);
    const keys = await db.query<{ key: string }>('SELECT key FROM kandev_meta');
    expect(keys.map((k) => k.key).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());

    const rows = (await Promise.all(sessions.map((s) => db.store().listBySession(s)))).flat();
    expect(rows.every((row) => row.source === 'backfill' && row.agent_execution_id === 'unknown')).toBe(true);
    expect(new Map(rows.map((row) => [keyOf(row.task_session_id, row.tool_call_id), short(row.turn_id)]))).toEqual(backfillExpected);
    expect(rows).toHaveLength(backfillExpected.size);
    expect(backfillExpected.size).toBeGreaterThan(10); // the fuzz recorded something, and skipped much more
    expect(backfillExpected.size).toBeLessThan(HISTORY / 2);
  });

  it('live: frames and their messages leave no shortfall, and no two executions share a row', async () => {
    const clock = steppingClock(T0 + 7200n * SECOND, SECOND);
    const store = db.store({ clock });
    let skipped = 0;
    let frames = 0;
    /** Per recordable subagent: the execution keys its rows must have. */
    const expected = new Map<string, Set<string>>();
    for (let i = 0; i < LIVE; i++) {
      const sessionId = r.pick(sessions);
      const taskId = r.chance(0.8) ? 'task-1' : randomId(r);
      const toolCallId = randomId(r);
      const turnId = r.chance(0.5) ? 'turn-live' : randomId(r);
      // The host writes the message first (a tool-call frame is what the writer records).
      await insertMessage(db, {
        id: `m-live-${i}`,
        sessionId,
        taskId,
        turnId,
        metadata: subagentMetadata({ toolCallId, subagent: {} }),
        createdAt: hostTimestamp(db, clock()),
      });
      // One to three executions (AC-32: a tool call id reused), each with one to three frames.
      const executions = Array.from({ length: 1 + r.int(3) }, () => (r.chance(0.1) ? undefined : randomId(r)));
      const batch: SubagentFrame[] = [];
      for (const executionId of executions) {
        for (let k = 0, n = 1 + r.int(3); k < n; k++) {
          batch.push({
            sessionId,
            taskId,
            turnId,
            toolCallId,
            executionId,
            toolStatus: k === n - 1 ? 'completed' : 'in_progress',
            payload: { model: `model-${k}`, total_tokens: k + 1 },
          });
        }
      }
      const outcomes = r.chance(0.5) ? await store.recordFrames(batch) : await Promise.all(batch.map((f) => store.recordFrame(f)));
      frames += batch.length;
      const identified = recordable(sessionId) && recordable(taskId) && recordable(toolCallId);
      expect(outcomes, `subagent ${i}: ${keyOf(sessionId, toolCallId)}, task ${short(taskId)}`).toEqual(
        batch.map(() => (identified ? 'persisted' : 'skipped_no_identity')),
      );
      if (!identified) {
        skipped += batch.length;
        continue;
      }
      const key = keyOf(sessionId, toolCallId);
      expect(expected.has(key)).toBe(false); // random ids: every subagent is new
      expected.set(key, new Set(executions.map((e) => short(executionKey(e))!)));
    }
    expect(store.counters()).toMatchObject({ attempted: frames, skipped_no_identity: skipped, persisted: frames - skipped, failed: 0 });
    expect(skipped).toBeGreaterThan(0);

    const live = (await Promise.all(sessions.map((s) => store.listBySession(s)))).flat().filter((row) => row.source === 'live');
    const byKey = new Map<string, string[]>();
    for (const row of live) {
      const key = keyOf(row.task_session_id, row.tool_call_id);
      byKey.set(key, [...(byKey.get(key) ?? []), short(row.agent_execution_id)!]);
    }
    // Exactly one row per (subagent, execution): nothing merged, nothing lost, nothing extra.
    expect(new Map([...byKey].map(([k, v]) => [k, [...v].sort()]))).toEqual(new Map([...expected].map(([k, v]) => [k, [...v].sort()])));
    for (const row of live) {
      expect(utf8Bytes(row.agent_execution_id)).toBeLessThanOrEqual(BOUND);
      expect(row).toMatchObject({ tool_status: 'completed' }); // each execution's frames merged into its own row
    }
    const extraExecutions = [...expected.values()].reduce((n, set) => n + set.size - 1, 0);
    expect(extraExecutions).toBeGreaterThan(0);

    const report = await store.checkHealth();
    expect(report).toMatchObject({ state: 'activated', shortfall: 0, excess: 0, collisions: extraExecutions, verdict: 'healthy' });
  }, 120_000);
});
