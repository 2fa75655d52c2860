// The recognizer and recorder against ACP traffic recorded from real agents
// (recordings/acp/, scripts/record-acp-fixtures.ts), end to end into a real store on both
// dialects: which tool calls become rows, and every field each agent reports reaching them.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { loadRecording } from '../src/demo/recordings.js';
import { expectClaudeCapability, expectClaudeFanout, expectClaudeRefused, expectOpencodeFanout } from './helpers/acp-expectations.js';
import { acpSessionOf, contextFor, loadAcpFixture, replayFixture } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

describeBothDialects('ACP intake from recorded real agents', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('Claude Code: three parallel reviewers, one background, one nested; the subagent’s own Read is no row', async () => {
    const rows = await replayFixture(db, 'claude-fanout');
    expect([...rows.keys()].sort()).toEqual(['toolu_fake0002', 'toolu_fake0003', 'toolu_fake0004', 'toolu_fake0005', 'toolu_fake0011']);
    expectClaudeFanout(rows);
  });

  it('Claude Code: a launch the auto-mode check refuses is a settled failed row, agent_status the refusal kind', async () => {
    expectClaudeRefused(await replayFixture(db, 'claude-refused'));
  });

  it('Claude Code with the subagents capability: each subagent_update child is a row keyed by its child session, idle settles it', async () => {
    expectClaudeCapability(await replayFixture(db, 'claude-subagents-capability'));
  });

  it('OpenCode: three parallel and one background; model providerID/modelID, the child session, no usage', async () => {
    expectOpencodeFanout(await replayFixture(db, 'opencode-fanout'));
  });

  it('the same traffic through the bare recognizer and store.recordFrame gives the same rows as the recorder', async () => {
    const viaRecorder = await replayFixture(db, 'opencode-fanout');
    const other = await openTestDb(dialect, 'package');
    try {
      await insertSession(other, 's1', 'task-1');
      const store = other.store({ clock: steppingClock() });
      const recognizer = createSubagentRecognizer();
      for (const u of loadAcpFixture('opencode-fanout')) {
        const r = recognizer.observe(u);
        if (r)
          await store.recordFrame({
            ...contextFor(r.acpSessionId)(r.acpSessionId)!,
            toolCallId: r.toolCallId,
            parentToolCallId: r.parentToolCallId,
            toolStatus: r.toolStatus,
            payload: r.payload,
          });
      }
      const rows = await store.listBySession('s1');
      expect(rows.map(({ id: _id, ...rest }) => rest)).toEqual([...viaRecorder.values()].map(({ id: _id, ...rest }) => rest));
    } finally {
      await other.close();
    }
  });
});

it('recognizer state: nothing is left of a settled call; forget(session) drops the rest', () => {
  for (const name of ['claude-fanout', 'claude-subagents-capability', 'claude-refused', 'opencode-fanout'] as const) {
    const recognizer = createSubagentRecognizer();
    for (const u of loadAcpFixture(name)) recognizer.observe(u);
    const left = recognizer.size();
    recognizer.forget(acpSessionOf(name));
    expect({ name, left, afterForget: recognizer.size() }).toEqual({ name, left: name === 'claude-subagents-capability' ? 5 : 0, afterForget: 0 });
  }
});

it('the demo plays the recorded traffic itself: every update, in order, and the session it was recorded on (src/demo/recordings.ts)', () => {
  for (const name of ['claude-fanout', 'claude-subagents-capability', 'opencode-fanout'] as const) {
    const played = loadRecording(name);
    expect(played.updates).toEqual(loadAcpFixture(name));
    expect(played.acpSessionId).toBe(acpSessionOf(name));
  }
});

type ClaudeMeta = { toolName?: string; parentToolUseId?: string; toolResponse?: Record<string, unknown> };
const claudeMeta = (update: Record<string, unknown>) => (update._meta as { claudeCode?: ClaudeMeta } | undefined)?.claudeCode;

it('the recording is Claude Code 2.1.335: SubagentHandback used but not in totalToolUseCount, toolStats only with a counted tool, handbackReport.toolUseId', () => {
  const updates = loadAcpFixture('claude-fanout').map((u) => u.update);
  const description = new Map<string, string>(); // Agent call → its description
  const handback = new Map<string, string>(); // Agent call → its subagent's SubagentHandback call, where the stream carries it
  const responses: [string, Record<string, unknown>][] = [];
  for (const update of updates) {
    const meta = claudeMeta(update);
    const id = update.toolCallId as string;
    const input = update.rawInput as { description?: string } | undefined;
    if (meta?.toolName === 'Agent' && input?.description) description.set(id, input.description);
    if (meta?.toolName === 'SubagentHandback' && update.sessionUpdate === 'tool_call') handback.set(meta.parentToolUseId!, id);
    if (meta?.toolName === 'Agent' && meta.toolResponse?.status === 'completed') responses.push([id, meta.toolResponse]);
  }
  const seen = Object.fromEntries(
    responses.map(([id, r]) => [
      description.get(id),
      { toolsUsed: r.toolsUsed, totalToolUseCount: r.totalToolUseCount, toolStats: r.toolStats !== undefined, handbackReport: r.handbackReport },
    ]),
  );
  const report = (toolUseId: unknown) => ({ text: 'Reviewed: no findings.', toolUseId });
  const id = (d: string) => [...description].find(([, v]) => v === d)![0];
  expect(seen).toEqual({
    'Review security': {
      toolsUsed: ['Read', 'SubagentHandback'],
      totalToolUseCount: 1,
      toolStats: true,
      handbackReport: report(handback.get(id('Review security'))),
    },
    'Review performance': {
      toolsUsed: ['SubagentHandback'],
      totalToolUseCount: 0,
      toolStats: false,
      handbackReport: report(handback.get(id('Review performance'))),
    },
    'Review style': {
      toolsUsed: ['Agent', 'SubagentHandback'],
      totalToolUseCount: 1,
      toolStats: false,
      handbackReport: report(handback.get(id('Review style'))),
    },
    // A nested subagent's own calls do not reach the ACP stream: its handback's id is only named.
    'Nested check': {
      toolsUsed: ['SubagentHandback'],
      totalToolUseCount: 0,
      toolStats: false,
      handbackReport: report(expect.stringMatching(/^toolu_fake\d+$/)),
    },
  });
  expect(handback.has(id('Nested check'))).toBe(false);
  expect(new Set(handback.values()).size).toBe(4); // the three reviewers' and the background audit's
});

it("Claude's running call shows its prompt as the tool call's content: never read as its result (only an ended call's content is)", () => {
  const recognizer = createSubagentRecognizer();
  const snapshots = loadAcpFixture('claude-fanout')
    .map((u) => recognizer.observe(u))
    .filter((r) => r !== undefined);
  const running = snapshots.filter((r) => r!.toolStatus !== 'completed' && r!.toolStatus !== 'failed');
  const prompted = running.filter((r) => r!.payload.prompt !== undefined);
  expect(prompted.length).toBeGreaterThan(3);
  for (const r of prompted) expect(r!.payload.result_text, r!.toolCallId).not.toBe(r!.payload.prompt);
  // Each call still ends with a result: its report, or the background launch's notice.
  const ended = snapshots.filter((r) => r!.toolStatus === 'completed');
  expect(ended.length).toBe(5); // three reviewers, one background, one nested
  for (const r of ended) expect(r!.payload.result_text, r!.toolCallId).toEqual(expect.any(String));
});

it('a refused Claude launch keeps its reason: result_text on the failed update, the refusal kind as status after it', () => {
  const recognizer = createSubagentRecognizer();
  const refused = loadAcpFixture('claude-refused')
    .map((u) => recognizer.observe(u))
    .filter((r) => r !== undefined && r.toolCallId === 'toolu_fake0002');
  expect(refused.map((r) => r!.toolStatus)).toEqual(['pending', null, 'failed', null]);
  const [, , failed, after] = refused;
  expect(failed!.payload).toMatchObject({ description: 'Refused review', result_text: 'Permission denied: The scripted check refuses this launch.' });
  expect(failed!.payload.status).toBeUndefined(); // Claude reports no status on the failed update itself
  expect(after!.payload.status).toBe('automode-blocked'); // _meta.claudeCode.nonExecutionKind
  expect(after!.payload.result_text).toContain('Reason: The scripted check refuses this launch.');
  expect(recognizer.size()).toBe(0); // the update after the terminal one is the call's last: nothing kept
});
