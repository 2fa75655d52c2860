// Terminality (AC-10, AC-10a, AC-11, AC-12) through the database on both dialects: exactly
// the six ACP statuses settle a row, nothing else does, and settlement freezes tool_status
// and settled_at only.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TERMINAL_TOOL_STATUSES } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const T0 = '2026-07-25T17:20:00.123456Z';
const T1 = '2026-07-25T17:20:00.124456Z';
const NOT_TERMINAL = [
  'pending',
  'in_progress',
  'COMPLETED',
  'Completed',
  'canceled',
  'cancel',
  'done',
  'succeeded',
  ' completed',
  'completed ',
  'async_launched',
];

describeBothDialects('live terminality', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('each of the six terminal tool statuses settles the row at that observation (AC-11)', async () => {
    const store = db.store({ clock: steppingClock() });
    for (const status of TERMINAL_TOOL_STATUSES) {
      await store.recordFrame(frame({ toolCallId: `first-${status}`, toolStatus: status })); // settles on insert
      await store.recordFrame(frame({ toolCallId: `later-${status}`, toolStatus: 'in_progress' }));
      await store.recordFrame(frame({ toolCallId: `later-${status}`, toolStatus: status })); // settles on merge
    }
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row.settled_at, row.tool_call_id).toBe(row.updated_at);
      expect(row.tool_status, row.tool_call_id).toBe(row.tool_call_id.replace(/^(first|later)-/, ''));
    }
  });

  it('no other tool status settles a row, and agent_status never does (AC-10, AC-10a, AC-11)', async () => {
    const store = db.store({ clock: steppingClock() });
    for (const status of NOT_TERMINAL) {
      await store.recordFrame(frame({ toolCallId: `t-${status}`, toolStatus: status, payload: { status: 'completed' } }));
    }
    // An unrecognised agent status is stored verbatim and does not settle (AC-10a).
    await store.recordFrame(frame({ toolCallId: 'unknown-agent-status', toolStatus: 'in_progress', payload: { status: 'provider_specific_status' } }));
    await store.recordFrame(frame({ toolCallId: 'never-reported' }));
    const rows = await store.listBySession('s1');
    expect(rows).toHaveLength(NOT_TERMINAL.length + 2);
    expect(rows.filter((r) => r.settled_at !== null)).toEqual([]);
    expect(rows.find((r) => r.tool_call_id === 't-COMPLETED')).toMatchObject({ tool_status: 'COMPLETED', agent_status: 'completed' });
    expect(rows.find((r) => r.tool_call_id === 'unknown-agent-status')?.agent_status).toBe('provider_specific_status');
    // AC-10: a row never reported any status keeps both NULL, and still exists.
    expect(rows.find((r) => r.tool_call_id === 'never-reported')).toMatchObject({ tool_status: null, agent_status: null, settled_at: null });
  });

  it('an unsettled row holds the last observed statuses (AC-10)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolStatus: 'pending', payload: { status: 'started' } }));
    await store.recordFrame(frame({ toolStatus: 'in_progress', payload: { status: 'running' } }));
    await store.recordFrame(frame({ payload: {} }));
    expect((await store.listBySession('s1'))[0]).toMatchObject({ tool_status: 'in_progress', agent_status: 'running', settled_at: null });
  });

  it('a frame after settlement replaces model and other columns but not tool_status or settled_at (AC-12, AC-5)', async () => {
    const store = db.store({ clock: steppingClock() });
    await store.recordFrame(frame({ toolStatus: 'completed', payload: { model: 'model-1', status: 'completed', total_tokens: 10, description: 'd1' } }));
    await store.recordFrame(
      frame({ toolStatus: 'in_progress', turnId: 'turn-2', payload: { model: 'model-2', status: 'late', total_tokens: 20, subagent_type: 'filled-late' } }),
    );
    await store.recordFrame(frame({ toolStatus: 'failed' })); // a second terminal value does not move either
    const [row] = await store.listBySession('s1');
    expect(row).toMatchObject({
      tool_status: 'completed',
      settled_at: T0,
      model: 'model-2',
      agent_status: 'late',
      total_tokens: 20,
      description: 'd1',
      subagent_type: 'filled-late',
      turn_id: 'turn-1',
    });
    expect(row.updated_at).not.toBe(T0);
    expect(row.updated_at > T1).toBe(true);
  });
});
