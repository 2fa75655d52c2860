// The recognizer and recorder against ACP traffic recorded from real agents
// (test/fixtures/acp/, scripts/record-acp-fixtures.ts), end to end into a real store on both
// dialects: which tool calls become rows, and every field each agent reports reaching them.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder, createSubagentRecognizer } from '../src/acp/index.js';
import type { SubagentContextRow } from '../src/types.js';
import { acpSessionOf, contextFor, loadAcpFixture, type AcpFixtureName } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { insertSession } from './helpers/host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

/** Replays a fixture through a recorder over the store; the rows, by tool call. */
async function replay(db: TestDb, name: AcpFixtureName): Promise<Map<string, SubagentContextRow>> {
  const store = db.store({ clock: steppingClock() });
  const recorder = createAcpRecorder(store, { context: contextFor(acpSessionOf(name)) });
  const outcomes = await Promise.all(loadAcpFixture(name).map((u) => recorder.sessionUpdate(u))); // not awaited one by one: the recorder keeps order
  expect(outcomes.filter((o) => o !== undefined && o !== 'persisted')).toEqual([]);
  expect(store.counters()).toMatchObject({ failed: 0, skipped_no_identity: 0 });
  return new Map((await store.listBySession('s1')).map((r) => [r.tool_call_id, r]));
}

const AGENT_ID = expect.stringMatching(/^a[0-9a-f]{16}$/);
const CLAUDE_CHILD = expect.stringMatching(/^a[0-9a-f]{16}$/);
const OPENCODE_CHILD = expect.stringMatching(/^ses_\w+$/);
const DURATION = expect.any(Number);
const identity = { task_session_id: 's1', task_id: 'task-1', turn_id: 'turn-1', agent_execution_id: '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11', source: 'live' };
const settled = { tool_status: 'completed', settled_at: expect.any(String) };

/** Claude's toolResponse of a foreground subagent: usage as measured (the scripted API reports 150 tokens a response). */
function claudeForeground(tool_call_id: string, description: string, tool_use_count: number, parent_tool_call_id: string | null = null) {
  return {
    ...identity,
    ...settled,
    tool_call_id,
    parent_tool_call_id,
    description,
    subagent_type: 'general-purpose',
    agent_id: AGENT_ID,
    child_session_id: null,
    model: 'claude-opus-5-5',
    agent_status: 'completed',
    is_async: false,
    total_tokens: 150,
    tool_use_count,
    duration_ms: DURATION,
  };
}

describeBothDialects('ACP intake from recorded real agents', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('Claude Code: three parallel reviewers, one background, one nested; the subagent’s own Read is no row', async () => {
    const rows = await replay(db, 'claude-fanout');
    expect([...rows.keys()].sort()).toEqual(['toolu_fake0002', 'toolu_fake0003', 'toolu_fake0004', 'toolu_fake0005', 'toolu_fake0015']);
    expect(rows.get('toolu_fake0002')).toMatchObject(claudeForeground('toolu_fake0002', 'Review security', 1)); // its Read counted, not recorded
    expect(rows.get('toolu_fake0003')).toMatchObject(claudeForeground('toolu_fake0003', 'Review performance', 0)); // a reported zero (AC-8)
    expect(rows.get('toolu_fake0004')).toMatchObject(claudeForeground('toolu_fake0004', 'Review style', 1)); // its nested Agent call
    expect(rows.get('toolu_fake0015')).toMatchObject(claudeForeground('toolu_fake0015', 'Nested check', 0, 'toolu_fake0004'));
    // Background: async_launched, no usage on the ACP stream (the child's usage never reaches it).
    expect(rows.get('toolu_fake0005')).toMatchObject({
      ...identity,
      ...settled,
      description: 'Background audit',
      subagent_type: 'general-purpose',
      agent_id: AGENT_ID,
      model: 'claude-opus-5-5',
      agent_status: 'async_launched',
      is_async: true,
      total_tokens: null,
      tool_use_count: null,
      duration_ms: null,
    });
    for (const row of rows.values()) expect(row.duration_ms === null || (row.duration_ms as number) > 0).toBe(true);
  });

  it('Claude Code with the subagents capability: each subagent_update child is a row keyed by its child session, idle settles it', async () => {
    const rows = [...(await replay(db, 'claude-subagents-capability')).values()];
    expect(rows.map((r) => r.description).sort()).toEqual(['Background audit', 'Nested check', 'Review performance', 'Review security', 'Review style']);
    for (const row of rows) {
      expect(row).toMatchObject({ ...identity, ...settled, tool_call_id: CLAUDE_CHILD, subagent_type: 'general-purpose', agent_status: 'idle' });
      expect(row.child_session_id).toBe(row.tool_call_id);
      // What the capability does not carry: no usage, no agent id, no model.
      expect(row).toMatchObject({ total_tokens: null, tool_use_count: null, duration_ms: null, agent_id: null, model: null });
    }
    const style = rows.find((r) => r.description === 'Review style')!;
    const nested = rows.find((r) => r.description === 'Nested check')!;
    expect(nested.parent_tool_call_id).toBe(style.child_session_id); // announced on the style reviewer's own session
    expect(rows.filter((r) => r !== nested).every((r) => r.parent_tool_call_id === null)).toBe(true);
  });

  it('OpenCode: three parallel and one background; model providerID/modelID, the child session, no usage', async () => {
    const rows = await replay(db, 'opencode-fanout');
    expect([...rows.keys()].sort()).toEqual(['toolu_fake0002', 'toolu_fake0003', 'toolu_fake0004', 'toolu_fake0005']);
    const base = { ...identity, ...settled, subagent_type: 'general', model: 'scripted/claude-scripted', child_session_id: OPENCODE_CHILD, agent_id: null, agent_status: null };
    const none = { total_tokens: null, tool_use_count: null, duration_ms: null };
    expect(rows.get('toolu_fake0002')).toMatchObject({ ...base, ...none, description: 'Review security', is_async: false });
    expect(rows.get('toolu_fake0003')).toMatchObject({ ...base, ...none, description: 'Review performance', is_async: false });
    expect(rows.get('toolu_fake0004')).toMatchObject({ ...base, ...none, description: 'Review style', is_async: false });
    expect(rows.get('toolu_fake0005')).toMatchObject({ ...base, ...none, description: 'Background audit', is_async: true }); // metadata.background
    expect(new Set([...rows.values()].map((r) => r.child_session_id)).size).toBe(4);
  });

  it('the same traffic through the bare recognizer and store.recordFrame gives the same rows as the recorder', async () => {
    const viaRecorder = await replay(db, 'opencode-fanout');
    const other = await openTestDb(dialect, 'package');
    try {
      await insertSession(other, 's1', 'task-1');
      const store = other.store({ clock: steppingClock() });
      const recognizer = createSubagentRecognizer();
      for (const u of loadAcpFixture('opencode-fanout')) {
        const r = recognizer.observe(u);
        if (r) await store.recordFrame({ ...contextFor(r.acpSessionId)(r.acpSessionId)!, toolCallId: r.toolCallId, parentToolCallId: r.parentToolCallId, toolStatus: r.toolStatus, payload: r.payload });
      }
      const rows = await store.listBySession('s1');
      expect(rows.map(({ id: _id, ...rest }) => rest)).toEqual([...viaRecorder.values()].map(({ id: _id, ...rest }) => rest));
    } finally {
      await other.close();
    }
  });
});

it('recognizer state: nothing is left of a settled call; forget(session) drops the rest', () => {
  for (const name of ['claude-fanout', 'claude-subagents-capability', 'opencode-fanout'] as const) {
    const recognizer = createSubagentRecognizer();
    for (const u of loadAcpFixture(name)) recognizer.observe(u);
    const left = recognizer.size();
    recognizer.forget(acpSessionOf(name));
    expect({ name, left, afterForget: recognizer.size() }).toEqual({ name, left: name === 'claude-subagents-capability' ? 5 : 0, afterForget: 0 });
  }
});
