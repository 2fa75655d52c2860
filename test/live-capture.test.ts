// The spec's Verification items for the frame paths (AC-1, AC-2, AC-2a, AC-3, AC-6, AC-13,
// AC-16, AC-31, AC-32), on both dialects, through the public store.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { EXEC_A, EXEC_B, frame, rawRow } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';

// steppingClock(): 2026-07-25T17:20:00.123456789Z, then +1 ms per read.
const T0 = '2026-07-25T17:20:00.123456Z';
const T1 = '2026-07-25T17:20:00.124456Z';
const T2 = '2026-07-25T17:20:00.125456Z';

describeBothDialects('live capture', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('first frame inserts one live row; a later frame merges into the same row (AC-1, AC-3)', async () => {
    const store = db.store({ clock: steppingClock() });
    expect(await store.recordFrame(frame({ toolStatus: 'pending', payload: { description: 'Review', subagent_type: 'security-reviewer' } }))).toBe('persisted');
    const [first] = await store.listBySession('s1');
    expect(first).toMatchObject({ source: 'live', observed_at: T0, updated_at: T0, settled_at: null, tool_status: 'pending', description: 'Review' });

    expect(await store.recordFrame(frame({ toolStatus: 'in_progress', payload: { model: 'claude-opus-5[1m]', agent_id: 'agent-7' } }))).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      ...first,
      tool_status: 'in_progress',
      model: 'claude-opus-5[1m]',
      agent_id: 'agent-7',
      updated_at: T1, // last write to the row
    });
    expect(rows[0].id).toBe(first.id); // the same row, not a replacement
  });

  it('an out-of-order terminal frame settles the row and later non-terminal frames do not unsettle it (AC-11, AC-12)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolStatus: 'completed', payload: { status: 'completed', total_tokens: 1200 } }));
    await store.recordFrame(frame({ toolStatus: 'in_progress', payload: { status: 'started' } }));
    await store.recordFrame(frame({ toolStatus: 'pending' }));
    const [row] = await store.listBySession('s1');
    expect(row).toMatchObject({ tool_status: 'completed', settled_at: T0, agent_status: 'started', total_tokens: 1200, updated_at: T2 });
  });

  it('a nested subagent is written with its parent_tool_call_id, not suppressed (AC-6)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolCallId: 'toolu_parent' }));
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_child', parentToolCallId: 'toolu_parent' }))).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.parent_tool_call_id])).toEqual([
      ['toolu_parent', null],
      ['toolu_child', 'toolu_parent'],
    ]);
  });

  for (const missing of ['sessionId', 'taskId', 'toolCallId'] as const) {
    for (const [how, value] of [
      ['empty', ''],
      ['null', null],
      ['absent', undefined],
    ] as const) {
      it(`a frame with ${how} ${missing} writes nothing and counts skipped_no_identity only (AC-2)`, async () => {
        const store = db.store({ clock: steppingClock() });
        const f = frame({ executionId: '', payload: { total_tokens: -1 } }); // would count both qualifiers if it reached the write
        if (value === undefined) delete f[missing];
        else f[missing] = value;
        expect(await store.recordFrame(f)).toBe('skipped_no_identity');
        expect(await db.query('SELECT id FROM task_session_subagents')).toEqual([]);
        expect(store.counters()).toEqual({
          attempted: 1,
          persisted: 0,
          skipped_no_identity: 1,
          anomalous_value: 0,
          failed: 0,
          unknown_execution: 0,
          ledger_failed: 0,
        });
      });
    }
  }

  it('the same tool call under a later turn keeps its first turn; a NULL turn is filled forward (AC-2a)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolCallId: 'kept', turnId: 'turn-1' }));
    await store.recordFrame(frame({ toolCallId: 'kept', turnId: 'turn-2', payload: { model: 'm' } }));
    await store.recordFrame(frame({ toolCallId: 'filled', turnId: '' }));
    await store.recordFrame(frame({ toolCallId: 'filled', turnId: null }));
    expect((await store.listBySession('s1')).find((r) => r.tool_call_id === 'filled')?.turn_id).toBeNull();
    await store.recordFrame(frame({ toolCallId: 'filled', turnId: 'turn-3' }));
    await store.recordFrame(frame({ toolCallId: 'filled', turnId: 'turn-4' }));
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.turn_id, r.model])).toEqual([
      ['kept', 'turn-1', 'm'],
      ['filled', 'turn-3', null],
    ]);
    expect((await store.listByTurn('s1', 'turn-2')).length).toBe(0); // not re-attributed
  });

  it('a live frame merging onto a backfilled row keeps source and observed_at and fills the rest (AC-1 merge path)', async () => {
    await insertSubagentRow(db, {
      sessionId: 's1',
      taskId: 'task-1',
      executionId: 'unknown',
      toolCallId: 'toolu_bf',
      turnId: 'turn-1',
      source: 'backfill',
      agentStatus: 'async_launched',
      observedAt: hostTimestamp(db, '2026-07-01 09:00:00.000001'),
    });
    const store = db.store({ clock: steppingClock() });
    const outcome = await store.recordFrame(
      frame({
        executionId: '',
        toolCallId: 'toolu_bf',
        taskId: 'task-other',
        turnId: 'turn-9',
        toolStatus: 'completed',
        payload: { model: 'claude-opus-5[1m]', subagent_type: 'reviewer', total_tokens: 900, tool_use_count: 0 },
      }),
    );
    expect(outcome).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      source: 'backfill', // write-once
      observed_at: '2026-07-01T09:00:00.000001Z', // write-once
      task_id: 'task-1', // write-once
      turn_id: 'turn-1', // first non-empty turn wins
      agent_execution_id: 'unknown',
      agent_status: 'async_launched', // not reported by the frame: kept
      model: 'claude-opus-5[1m]',
      subagent_type: 'reviewer',
      total_tokens: 900,
      tool_use_count: 0,
      tool_status: 'completed',
      settled_at: T0,
      updated_at: T0,
    });
    expect(store.counters().unknown_execution).toBe(1);
  });

  it('an empty execution id writes the row with the unknown sentinel and counts unknown_execution (AC-31)', async () => {
    const store = db.store({ clock: steppingClock() });
    expect(await store.recordFrame(frame({ executionId: '', toolCallId: 'a' }))).toBe('persisted');
    expect(await store.recordFrame(frame({ executionId: null, toolCallId: 'b' }))).toBe('persisted');
    const noExecution = frame({ toolCallId: 'c' });
    delete noExecution.executionId;
    expect(await store.recordFrame(noExecution)).toBe('persisted');
    expect(await store.recordFrame(frame({ toolCallId: 'd' }))).toBe('persisted');
    const rows = await db.query<{ tool_call_id: string; agent_execution_id: string }>(
      'SELECT tool_call_id, agent_execution_id FROM task_session_subagents ORDER BY tool_call_id',
    );
    expect(rows).toEqual([
      { tool_call_id: 'a', agent_execution_id: 'unknown' },
      { tool_call_id: 'b', agent_execution_id: 'unknown' },
      { tool_call_id: 'c', agent_execution_id: 'unknown' },
      { tool_call_id: 'd', agent_execution_id: EXEC_A },
    ]);
    expect(store.counters()).toEqual({
      attempted: 4,
      persisted: 4,
      skipped_no_identity: 0,
      anomalous_value: 0,
      failed: 0,
      unknown_execution: 3,
      ledger_failed: 0,
    });
  });

  it('a late frame from an earlier execution leaves the newer execution row byte-identical (AC-32)', async () => {
    await insertSubagentRow(db, {
      sessionId: 's1',
      taskId: 'task-1',
      executionId: EXEC_B,
      toolCallId: 'toolu_reused',
      turnId: 'turn-2',
      toolStatus: 'completed',
      agentStatus: 'completed',
      model: 'model-b',
      totalTokens: 4321,
      toolUseCount: 9,
      durationMs: 777,
      observedAt: hostTimestamp(db, '2026-07-25 17:00:00.000001'),
      settledAt: hostTimestamp(db, '2026-07-25 17:05:00.000002'),
      updatedAt: hostTimestamp(db, '2026-07-25 17:05:00.000002'),
    });
    const before = await rawRow(db, 's1', EXEC_B, 'toolu_reused');
    expect(before).not.toBeNull();
    const store = db.store({ clock: steppingClock() });
    const outcome = await store.recordFrame(
      frame({
        executionId: EXEC_A,
        toolCallId: 'toolu_reused',
        turnId: 'turn-1',
        toolStatus: 'in_progress',
        payload: { model: 'model-a', status: 'started', total_tokens: 1, tool_use_count: 2, duration_ms: 3, is_async: true },
      }),
    );
    expect(outcome).toBe('persisted');
    expect(await rawRow(db, 's1', EXEC_B, 'toolu_reused')).toBe(before);
    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.agent_execution_id, r.model, r.tool_status, r.total_tokens])).toEqual([
      [EXEC_B, 'model-b', 'completed', 4321],
      [EXEC_A, 'model-a', 'in_progress', 1],
    ]);
  });

  it('reads are ordered by observed_at, then tool_call_id, then agent_execution_id, ties included (AC-13)', async () => {
    // A clock that stands still: every frame ties on observed_at.
    const tied = 1_785_000_000_123_456_789n;
    const still = db.store({ clock: () => tied });
    for (const [toolCallId, executionId] of [
      ['b', EXEC_B],
      ['b', EXEC_A],
      ['a', EXEC_B],
      ['\u{1D4B3}', EXEC_A],
      ['\uFF21', EXEC_A],
      ['B', EXEC_A],
    ] as const) {
      await still.recordFrame(frame({ toolCallId, executionId, turnId: 'turn-1' }));
    }
    // An earlier instant sorts first whatever its ids; sub-microsecond digits truncate into the tie.
    const earlier = db.store({ clock: () => tied - 1_000n });
    await earlier.recordFrame(frame({ toolCallId: 'z', turnId: 'turn-1' }));
    const sameMicrosecond = db.store({ clock: () => tied + 200n });
    await sameMicrosecond.recordFrame(frame({ toolCallId: 'a', executionId: EXEC_A, turnId: 'turn-1' }));

    const expected = [
      ['z', EXEC_A],
      ['B', EXEC_A], // byte order: uppercase before lowercase
      ['a', EXEC_A], // '0b7e…' < 'a91c…'
      ['a', EXEC_B],
      ['b', EXEC_A],
      ['b', EXEC_B],
      ['\uFF21', EXEC_A], // UTF-8 EF BC A1 before F0 9D 92 B3 (UTF-16 order would invert these two)
      ['\u{1D4B3}', EXEC_A],
    ];
    const ids = (rows: { tool_call_id: string; agent_execution_id: string }[]) => rows.map((r) => [r.tool_call_id, r.agent_execution_id]);
    const bySession = await still.listBySession('s1');
    expect(ids(bySession)).toEqual(expected);
    expect(ids(await still.listByTurn('s1', 'turn-1'))).toEqual(expected);
    expect(bySession[0].observed_at).toBe('2026-07-25T17:20:00.123455Z');
    expect(new Set(bySession.slice(1).map((r) => r.observed_at))).toEqual(new Set([T0]));
  });

  it('deleting the session removes its rows by the foreign key cascade (AC-16)', async () => {
    await insertSession(db, 's2', 'task-2');
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolCallId: 'x' }));
    await store.recordFrame(frame({ toolCallId: 'y', parentToolCallId: 'x' }));
    await store.recordFrame(frame({ sessionId: 's2', taskId: 'task-2', toolCallId: 'x' }));
    await db.query('DELETE FROM task_sessions WHERE id = $1', ['s1']);
    expect(await store.listBySession('s1')).toEqual([]);
    expect((await store.listBySession('s2')).map((r) => r.tool_call_id)).toEqual(['x']);
  });
});
