// Foundation: a frame written through the generated upsert reads back through the generated
// list query with every column as written, on both dialects.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SubagentFrame } from '../src/types.js';
import { steppingClock } from './helpers/clock.js';
import { EXTENSION_TEXT_COLUMNS } from './helpers/merge-model.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

describeBothDialects('round trip', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('writes every column of a frame and reads it back through listBySession', async () => {
    const clock = steppingClock(1_785_000_000_123_456_789n);
    const store = db.store({ clock });
    // A text column beyond the spec's (docs/recipes.md) is written from the field its DDL tag names.
    const extension = Object.fromEntries(EXTENSION_TEXT_COLUMNS.map(([column]) => [column, `${column} value`]));
    const frame = {
      sessionId: 's1',
      taskId: 'task-1',
      turnId: 'turn-1',
      executionId: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11',
      toolCallId: 'toolu_01',
      parentToolCallId: 'toolu_00',
      toolStatus: 'completed',
      payload: {
        description: 'Review the diff',
        subagent_type: 'security-reviewer',
        status: 'completed',
        agent_id: 'agent-7',
        child_session_id: 'ses_child',
        model: 'claude-opus-5[1m]',
        duration_ms: 61_234,
        total_tokens: 275_717,
        tool_use_count: 17,
        is_async: true,
      } as Record<string, unknown>,
    } as Record<string, unknown>;
    for (const [column, object, field] of EXTENSION_TEXT_COLUMNS)
      ((object === 'frame' ? frame : frame.payload) as Record<string, unknown>)[field] = extension[column];
    const outcome = await store.recordFrame(frame as unknown as SubagentFrame);
    expect(outcome).toBe('persisted');
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(1);
    const { id, ...row } = rows[0];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(row).toEqual({
      task_session_id: 's1',
      task_id: 'task-1',
      turn_id: 'turn-1',
      agent_execution_id: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11',
      tool_call_id: 'toolu_01',
      parent_tool_call_id: 'toolu_00',
      subagent_type: 'security-reviewer',
      description: 'Review the diff',
      agent_id: 'agent-7',
      child_session_id: 'ses_child',
      model: 'claude-opus-5[1m]',
      agent_status: 'completed',
      tool_status: 'completed',
      is_async: true,
      total_tokens: 275_717,
      tool_use_count: 17,
      duration_ms: 61_234,
      source: 'live',
      // The clock's nanoseconds, truncated to the column's microseconds.
      observed_at: '2026-07-25T17:20:00.123456Z',
      settled_at: '2026-07-25T17:20:00.123456Z',
      updated_at: '2026-07-25T17:20:00.123456Z',
      ...extension,
    });
    expect(await store.listByTurn('s1', 'turn-1')).toEqual(rows);
    expect(await store.listByTurn('s1', 'turn-2')).toEqual([]);
  });

  it('round-trips int64 metrics beyond 2^53 as bigint', async () => {
    const store = db.store({ clock: steppingClock() });
    const big = 9_223_372_036_854_775_807n;
    await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 't', payload: { total_tokens: big, duration_ms: 2n ** 53n + 1n } });
    const [row] = await store.listBySession('s1');
    expect(row.total_tokens).toBe(big);
    expect(row.duration_ms).toBe(2n ** 53n + 1n);
  });
});
