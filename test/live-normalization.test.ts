// Nulls, zeroes, negatives and empties on the live path (AC-4, AC-7, AC-7a, AC-8, AC-9, the
// column rules, "The one shape a builder must not get wrong"), asserted against the stored
// columns with SQL, on both dialects.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const NULLABLE_TEXT = [
  'turn_id',
  'parent_tool_call_id',
  'subagent_type',
  'description',
  'agent_id',
  'child_session_id',
  'model',
  'agent_status',
  'tool_status',
] as const;

describeBothDialects('live normalization', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  /** The metric columns as SQL sees them: NULL stays null, a stored 0 is the string '0'. */
  const metrics = async (toolCallId = 'toolu_01') =>
    (
      await db.query<Record<string, string | null>>(
        `SELECT CAST(total_tokens AS TEXT) AS total_tokens, CAST(tool_use_count AS TEXT) AS tool_use_count, CAST(duration_ms AS TEXT) AS duration_ms
           FROM task_session_subagents WHERE tool_call_id = $1`,
        [toolCallId],
      )
    )[0];

  it('an async_launched payload stores all three metrics as NULL and none as 0 (the one shape)', async () => {
    const store = db.store({ clock: steppingClock() });
    // The wire shape: plain int64 zeros for tokens and duration, no tool count at all.
    await store.recordFrame(
      frame({
        toolCallId: 'a',
        toolStatus: 'completed',
        payload: { status: 'async_launched', is_async: true, agent_id: 'ag', model: 'm', total_tokens: 0, duration_ms: 0 },
      }),
    );
    await store.recordFrame(
      frame({
        toolCallId: 'b',
        toolStatus: 'completed',
        payload: { status: 'async_launched', is_async: true, total_tokens: 0, duration_ms: 0, tool_use_count: null },
      }),
    );
    const shape = await db.query<{ n: string | number; all_null: string | number; any_zero: string | number }>(
      `SELECT COUNT(*) AS n,
              SUM(CASE WHEN total_tokens IS NULL AND tool_use_count IS NULL AND duration_ms IS NULL THEN 1 ELSE 0 END) AS all_null,
              SUM(CASE WHEN total_tokens = 0 OR tool_use_count = 0 OR duration_ms = 0 THEN 1 ELSE 0 END) AS any_zero
         FROM task_session_subagents WHERE agent_status = 'async_launched'`,
    );
    expect(shape.map((r) => [Number(r.n), Number(r.all_null), Number(r.any_zero)])).toEqual([[2, 2, 0]]);
    // ... and the row is otherwise complete: settled via tool_status, is_async set (AC-11).
    const [row] = await store.listBySession('s1');
    expect(row).toMatchObject({ agent_status: 'async_launched', is_async: true, settled_at: '2026-07-25T17:20:00.123456Z', agent_id: 'ag' });
    expect(store.counters().anomalous_value).toBe(0);
  });

  it('a reported zero tool_use_count is 0, while zero total_tokens and duration_ms are NULL (AC-7a, AC-8)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ payload: { total_tokens: 0, duration_ms: 0, tool_use_count: 0 } }));
    expect(await metrics()).toEqual({ total_tokens: null, tool_use_count: '0', duration_ms: null });
    await store.recordFrame(frame({ toolCallId: 'bigint-zero', payload: { total_tokens: 0n, duration_ms: -0, tool_use_count: 0n } }));
    expect(await metrics('bigint-zero')).toEqual({ total_tokens: null, tool_use_count: '0', duration_ms: null });
    await store.recordFrame(frame({ toolCallId: 'unreported', payload: { tool_use_count: null } }));
    expect(await metrics('unreported')).toEqual({ total_tokens: null, tool_use_count: null, duration_ms: null });
  });

  it('a later zero never blanks a learned total_tokens or duration_ms (AC-7a, AC-4)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolStatus: 'completed', payload: { total_tokens: 275_717, duration_ms: 61_234, tool_use_count: 17 } }));
    await store.recordFrame(frame({ toolStatus: 'in_progress', payload: { total_tokens: 0, duration_ms: 0 } }));
    expect(await metrics()).toEqual({ total_tokens: '275717', tool_use_count: '17', duration_ms: '61234' });
    // A reported zero tool count IS a measurement, so it replaces (AC-5).
    await store.recordFrame(frame({ payload: { tool_use_count: 0 } }));
    expect(await metrics()).toEqual({ total_tokens: '275717', tool_use_count: '0', duration_ms: '61234' });
    expect(store.counters().anomalous_value).toBe(0);
  });

  it('a negative metric is NULL on creation, leaves the frame otherwise written, and counts once per frame (AC-9)', async () => {
    const store = db.store({ clock: steppingClock() });
    expect(await store.recordFrame(frame({ payload: { total_tokens: -1, tool_use_count: -2, duration_ms: -3n, model: 'still-written' } }))).toBe('persisted');
    expect(await metrics()).toEqual({ total_tokens: null, tool_use_count: null, duration_ms: null });
    expect((await store.listBySession('s1'))[0].model).toBe('still-written');
    expect(store.counters()).toMatchObject({ attempted: 1, persisted: 1, anomalous_value: 1 });
  });

  it('a later negative never blanks a learned value, and anomalous_value still counts (AC-9 revision 3)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolStatus: 'completed', payload: { total_tokens: 1200, tool_use_count: 4, duration_ms: 900 } }));
    await store.recordFrame(frame({ payload: { total_tokens: -1 } }));
    await store.recordFrame(frame({ payload: { tool_use_count: -1, duration_ms: -1 } }));
    expect(await metrics()).toEqual({ total_tokens: '1200', tool_use_count: '4', duration_ms: '900' });
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 3, anomalous_value: 2 });
  });

  it('an empty string is stored as NULL in every nullable text column, and never blanks a stored value (column rules, AC-4)', async () => {
    const store = db.store({ clock: steppingClock() });
    const empties = frame({
      turnId: '',
      parentToolCallId: '',
      toolStatus: '',
      payload: { subagent_type: '', description: '', agent_id: '', child_session_id: '', model: '', status: '' },
    });
    expect(await store.recordFrame(empties)).toBe('persisted');
    const nullity = async () =>
      (
        await db.query<Record<string, unknown>>(
          `SELECT ${NULLABLE_TEXT.map((c) => `CASE WHEN ${c} IS NULL THEN 'NULL' ELSE ${c} END AS ${c}`).join(', ')} FROM task_session_subagents`,
        )
      )[0];
    expect(await nullity()).toEqual(Object.fromEntries(NULLABLE_TEXT.map((c) => [c, 'NULL'])));

    const full = frame({
      turnId: 'turn-1',
      parentToolCallId: 'toolu_parent',
      toolStatus: 'in_progress',
      payload: { subagent_type: 'reviewer', description: 'Review', agent_id: 'agent-7', child_session_id: 'ses_1', model: 'm', status: 'started' },
    });
    await store.recordFrame(full);
    const learned = await nullity();
    expect(learned).toEqual({
      turn_id: 'turn-1',
      parent_tool_call_id: 'toolu_parent',
      subagent_type: 'reviewer',
      description: 'Review',
      agent_id: 'agent-7',
      child_session_id: 'ses_1',
      model: 'm',
      agent_status: 'started',
      tool_status: 'in_progress',
    });
    await store.recordFrame(empties);
    const bare = frame({ payload: {} });
    delete bare.turnId;
    await store.recordFrame(bare);
    expect(await nullity()).toEqual(learned);
  });

  it('stores int64 metrics verbatim, beyond 2^53 too, as numbers or bigints (column rules)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ payload: { total_tokens: 9_223_372_036_854_775_807n, duration_ms: 2 ** 60, tool_use_count: 2n ** 53n + 1n } }));
    expect(await metrics()).toEqual({ total_tokens: '9223372036854775807', tool_use_count: '9007199254740993', duration_ms: '1152921504606846976' });
    const [row] = await store.listBySession('s1');
    expect([row.total_tokens, row.tool_use_count, row.duration_ms]).toEqual([9_223_372_036_854_775_807n, 9_007_199_254_740_993n, 1_152_921_504_606_846_976n]);
    await store.recordFrame(frame({ payload: { total_tokens: 275_717 } }));
    expect(typeof (await store.listBySession('s1'))[0].total_tokens).toBe('number');
  });

  it('is_async is set only by a positive report and never set back to 0 (column rules)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ payload: { is_async: 'true' as never } }));
    await store.recordFrame(frame({ payload: { is_async: 1 as never } }));
    expect((await store.listBySession('s1'))[0].is_async).toBe(false);
    await store.recordFrame(frame({ payload: { is_async: true } }));
    await store.recordFrame(frame({ payload: { is_async: false } }));
    await store.recordFrame(frame({ payload: {} }));
    const stored = await db.query<{ is_async: number | bigint }>('SELECT is_async FROM task_session_subagents');
    expect(stored.map((r) => Number(r.is_async))).toEqual([1]);
  });
});
