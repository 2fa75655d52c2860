// Qwen Code's recorded ACP traffic (recordings/acp/qwen-fanout.jsonl, `qwen --acp` 0.24.4
// against the scripted Messages API) end to end into a real store on both dialects: the rows,
// the background launches left open until their completion notice settles them, and that
// notice arriving for a call the recognizer no longer remembers.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, type AcpRecorder } from '../src/acp/index.js';
import type { SubagentContextRow } from '../src/types.js';
import { expectQwenFanout } from './helpers/acp-expectations.js';
import { acpSessionOf, contextFor, loadAcpFixture, type AcpUpdate } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const FIXTURE = 'qwen-fanout';
const BACKGROUND = ['toolu_fake0004', 'toolu_fake0005', 'toolu_fake0006'];

const isCompletionNotice = (u: AcpUpdate) => u.update.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u.update).includes('"backgroundTask"');

/** The fixture split before the first background completion notice. */
function splitAtFirstNotice(): [AcpUpdate[], AcpUpdate[]] {
  const updates = loadAcpFixture(FIXTURE);
  const at = updates.findIndex(isCompletionNotice);
  expect(at).toBeGreaterThan(0);
  return [updates.slice(0, at), updates.slice(at)];
}

describeBothDialects('ACP intake from recorded Qwen Code', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  function recorder(): { store: ReturnType<TestDb['store']>; recorder: AcpRecorder } {
    const store = db.store({ clock: steppingClock() });
    return { store, recorder: createAcpRecorder(store, { context: contextFor(acpSessionOf(FIXTURE)) }) };
  }

  async function play(r: AcpRecorder, updates: AcpUpdate[]): Promise<void> {
    const outcomes = await Promise.all(updates.map((u) => r.sessionUpdate(u)));
    expect(outcomes.filter((o) => o !== undefined && o !== 'persisted')).toEqual([]);
  }

  async function rowsOf(store: ReturnType<TestDb['store']>): Promise<Map<string, SubagentContextRow>> {
    expect(store.counters()).toMatchObject({ failed: 0, skipped_no_identity: 0 });
    return new Map((await store.listBySession('s1')).map((r) => [r.tool_call_id, r]));
  }

  it('three foreground reviewers, two nested, three background: summed totals, the parent link, no row for read_file', async () => {
    const { store, recorder: r } = recorder();
    await play(r, loadAcpFixture(FIXTURE));
    const rows = await rowsOf(store);
    expect([...rows.keys()].sort()).toEqual([
      'toolu_fake0001',
      'toolu_fake0002',
      'toolu_fake0003',
      'toolu_fake0004',
      'toolu_fake0005',
      'toolu_fake0006',
      'toolu_fake0008',
      'toolu_fake0012',
    ]);
    expectQwenFanout(rows);
  });

  it('a background launch stays open (in_progress, agent_status background) until its completion notice settles it', async () => {
    const [before, after] = splitAtFirstNotice();
    const { store, recorder: r } = recorder();
    await play(r, before);
    const open = await rowsOf(store);
    for (const id of BACKGROUND) {
      // The launch's own `completed` frame arrived (rawOutput.status "background"); it settles nothing.
      expect(before.some((u) => u.update.toolCallId === id && u.update.status === 'completed')).toBe(true);
      expect(open.get(id)).toMatchObject({ tool_status: 'in_progress', settled_at: null, agent_status: 'background', is_async: true, agent_id: null });
    }
    await play(r, after);
    const rows = await rowsOf(store);
    for (const id of BACKGROUND) {
      expect(rows.get(id)).toMatchObject({ tool_status: 'completed', settled_at: expect.any(String), agent_status: 'completed' });
      expect(rows.get(id)!.settled_at! > open.get(id)!.updated_at).toBe(true); // settled by the notice, not at launch
    }
    expectQwenFanout(rows);
  });

  it('a completion notice for a call the recognizer no longer remembers still settles its row, and the fields learned before stay', async () => {
    const [before, after] = splitAtFirstNotice();
    const { store, recorder: r } = recorder();
    await play(r, before);
    r.forget(acpSessionOf(FIXTURE)); // as a host does at session end, or an evicted call
    await play(r, after);
    const rows = await rowsOf(store);
    for (const id of BACKGROUND)
      expect(rows.get(id)).toMatchObject({
        description: expect.stringMatching(/^Background /),
        subagent_type: 'general-purpose',
        tool_status: 'completed',
        settled_at: expect.any(String),
        agent_status: 'completed',
        agent_id: `general-purpose-${id}`,
        is_async: true,
      });
    // Qwen names the agent tool on every frame but progress lines, so the foreground calls are
    // recognized again from their next frame: the same rows as without the forget.
    expectQwenFanout(rows);
  });

  it('a completion notice for a call never seen is a row with what the notice says, never silence', async () => {
    const { store, recorder: r } = recorder();
    await play(r, loadAcpFixture(FIXTURE).filter(isCompletionNotice));
    const rows = await rowsOf(store);
    expect([...rows.keys()].sort()).toEqual(BACKGROUND);
    for (const id of BACKGROUND)
      expect(rows.get(id)).toMatchObject({
        description: null,
        tool_status: 'completed',
        settled_at: expect.any(String),
        agent_status: 'completed',
        agent_id: `general-purpose-${id}`,
        is_async: true,
      });
  });
});
