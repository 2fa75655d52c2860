// Codex (@agentclientprotocol/codex-acp over @openai/codex): its recorded ACP traffic end to end
// into a real store on both dialects, and the Codex shape alone on frames built as the adapter
// builds them (CollabAgentReporter / SubagentActivityReporter in its dist/index.js): which
// tool calls are subagents, every field the wire carries, and never a row for Codex's other
// tool calls (commands, file edits, wait/sendInput/closeAgent, a subagent's completion notice).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { expectCodexCapability, expectCodexFanout, expectCodexMultiAgentV2 } from './helpers/acp-expectations.js';
import { acpSessionOf, loadAcpFixture, type AcpFixtureName, replayFixture } from './helpers/acp-fixtures.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const CODEX_FIXTURES = ['codex-fanout', 'codex-subagents-capability', 'codex-multi-agent-v2'] as const;

/** The tool calls of a recording, by id, with the title of their first frame. */
function toolCallsOf(name: AcpFixtureName): Map<string, string> {
  const calls = new Map<string, string>();
  for (const { update } of loadAcpFixture(name)) if (update.sessionUpdate === 'tool_call') calls.set(String(update.toolCallId), String(update.title));
  return calls;
}

describeBothDialects('ACP intake from recorded Codex', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('multi_agent_v1: the three parallel spawnAgent calls are the rows; the wait call and the main agent’s command are none', async () => {
    const rows = await replayFixture(db, 'codex-fanout');
    const calls = toolCallsOf('codex-fanout');
    // The recording has the ordinary calls this must ignore: a command and at least one wait.
    expect([...calls.values()].some((t) => t.startsWith('Read file'))).toBe(true);
    expect([...calls.values()]).toContain('wait');
    expect([...rows.keys()].sort()).toEqual([...calls].filter(([, t]) => t === 'spawnAgent').map(([id]) => id));
    expect([...rows.keys()].sort()).toEqual(['call_fake0002', 'call_fake0004', 'call_fake0006']);
    expectCodexFanout(rows);
  });

  it('with the subagents capability: no spawnAgent call; each subagent_update child is a row, idle settles it', async () => {
    const name = 'codex-subagents-capability';
    expect([...toolCallsOf(name).values()]).not.toContain('spawnAgent');
    const rows = await replayFixture(db, name);
    expect(rows.size).toBe(3);
    expectCodexCapability(rows, acpSessionOf(name));
  });

  it('multi_agent_v2: each `Start subagent <task>` call is a row; `Complete subagent`, wait and the command are none', async () => {
    const rows = await replayFixture(db, 'codex-multi-agent-v2');
    const calls = toolCallsOf('codex-multi-agent-v2');
    expect([...calls.values()].filter((t) => t.startsWith('Complete subagent '))).toHaveLength(3);
    expect([...rows.keys()].sort()).toEqual([...calls].filter(([, t]) => t.startsWith('Start subagent ')).map(([id]) => id));
    expect(rows.size).toBe(3);
    expectCodexMultiAgentV2(rows);
  });
});

it('Codex recognizer state: nothing is left of a settled spawn; forget(session) drops the rest', () => {
  for (const name of CODEX_FIXTURES) {
    const recognizer = createSubagentRecognizer();
    for (const u of loadAcpFixture(name)) recognizer.observe(u);
    const left = recognizer.size();
    recognizer.forget(acpSessionOf(name));
    // With the capability the children stay announced (and a status-less update after `idle`
    // remembers its child again) until the session is forgotten.
    expect({ name, left: left > 0, afterForget: recognizer.size() }).toEqual({ name, left: name === 'codex-subagents-capability', afterForget: 0 });
  }
});

describe('Codex shape (frames as codex-acp 2.6.0 builds them)', () => {
  const S = 'acp-codex';
  const ROOT = '01a23e1e-3d3a-70a0-9115-50119b9871fd';
  const CHILD = '01a23e1e-4047-7d42-9a93-10b3fb3cdb42';
  const up = (update: Record<string, unknown>) => ({ sessionId: S, update });
  /** A collab item's tool call (CollabAgentReporter.facts: title = the item's tool, rawInput = its fields and status). */
  const collab = (kind: 'tool_call' | 'tool_call_update', toolCallId: string, title: string | undefined, fields: Record<string, unknown>, status: string) =>
    up({
      sessionUpdate: kind,
      toolCallId,
      ...(title === undefined ? {} : { title, kind: 'other' }),
      status,
      rawInput: {
        prompt: null,
        senderThreadId: ROOT,
        receiverThreadIds: [],
        agentsStates: {},
        model: null,
        reasoningEffort: null,
        ...fields,
        status: status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : 'inProgress',
      },
    });

  it('spawnAgent: prompt, then the child thread (child session and agent id), its state and the model on the terminal frame; detached', () => {
    const r = createSubagentRecognizer();
    expect(r.observe(collab('tool_call', 'call_1', 'spawnAgent', { prompt: 'Review it.', model: '', reasoningEffort: 'medium' }, 'in_progress'))).toEqual({
      acpSessionId: S,
      toolCallId: 'call_1',
      parentToolCallId: null,
      toolStatus: 'in_progress',
      payload: { prompt: 'Review it.', is_async: true }, // model "" is no model
    });
    const done = r.observe(
      collab(
        'tool_call_update',
        'call_1',
        undefined,
        {
          prompt: 'Review it.',
          receiverThreadIds: [CHILD],
          agentsStates: { [CHILD]: { status: 'pendingInit', message: null } },
          model: 'gpt-x',
          reasoningEffort: 'medium',
        },
        'completed',
      ),
    );
    expect(done).toEqual({
      acpSessionId: S,
      toolCallId: 'call_1',
      parentToolCallId: null,
      toolStatus: 'completed',
      payload: { prompt: 'Review it.', is_async: true, child_session_id: CHILD, agent_id: CHILD, status: 'pendingInit', model: 'gpt-x' },
    });
    expect(r.size()).toBe(0); // settled: nothing kept
  });

  it('a failed spawn settles failed with the state Codex gives its child', () => {
    const r = createSubagentRecognizer();
    r.observe(collab('tool_call', 'call_2', 'spawnAgent', { prompt: 'p' }, 'in_progress'));
    const failed = r.observe(
      collab(
        'tool_call_update',
        'call_2',
        undefined,
        { prompt: 'p', receiverThreadIds: [CHILD], agentsStates: { [CHILD]: { status: 'errored', message: 'boom' } } },
        'failed',
      ),
    );
    expect(failed).toMatchObject({ toolStatus: 'failed', payload: { status: 'errored', child_session_id: CHILD } });
  });

  it('never a row for Codex’s other calls: wait, sendInput, resumeAgent, closeAgent, followupTask, commands, edits, searches', () => {
    const r = createSubagentRecognizer();
    const others = [
      ...['wait', 'sendInput', 'resumeAgent', 'closeAgent', 'followupTask'].map((tool, i) =>
        collab('tool_call', `c${i}`, tool, { receiverThreadIds: [CHILD], agentsStates: { [CHILD]: { status: 'completed', message: 'done' } } }, 'in_progress'),
      ),
      // As recorded: a command (`exec_command`), and its end frame.
      up({
        sessionUpdate: 'tool_call',
        toolCallId: 'x1',
        title: "Read file '/w/NOTES.md'",
        name: 'exec_command',
        kind: 'read',
        status: 'in_progress',
        locations: [{ path: '/w/NOTES.md' }],
      }),
      up({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'x1',
        status: 'completed',
        rawOutput: { exit_code: 0 },
        _meta: { terminal_output_delta: { data: 'x', terminal_id: 'x1' } },
      }),
      up({
        sessionUpdate: 'tool_call',
        toolCallId: 'x2',
        title: 'Run npm test',
        kind: 'execute',
        status: 'in_progress',
        rawInput: { command: ['npm', 'test'], cwd: '/w' },
      }),
      up({
        sessionUpdate: 'tool_call',
        toolCallId: 'x3',
        title: 'Edit /w/a.ts',
        kind: 'edit',
        status: 'pending',
        rawInput: { changes: { '/w/a.ts': { type: 'update' } } },
      }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'x4', title: 'Search the web', kind: 'fetch', status: 'in_progress', rawInput: { query: 'subagent' } }),
      // A spawn's end frame for a call never seen starting (no title): not claimed on a guess.
      collab('tool_call_update', 'c9', undefined, { prompt: 'p', receiverThreadIds: [CHILD] }, 'completed'),
    ];
    for (const u of others) expect(r.observe(u)).toBeUndefined();
    expect(r.size()).toBe(0);
  });

  it('multi_agent_v2: `Start subagent <name>` is the launch (task name, task path as agent id, child thread); the other activity kinds are not', () => {
    const r = createSubagentRecognizer();
    const activity = (toolCallId: string, kind: string, title: string) =>
      up({
        sessionUpdate: 'tool_call',
        toolCallId,
        kind: 'other',
        title,
        status: 'in_progress',
        rawInput: { agentThreadId: CHILD, agentPath: '/root/review_security', activityKind: kind },
      });
    expect(r.observe(activity('call_5', 'started', 'Start subagent review_security'))?.payload).toEqual({
      description: 'review_security',
      agent_id: '/root/review_security',
      child_session_id: CHILD,
      is_async: true,
    });
    // Its end frame carries nothing but the status (SubagentActivityReporter, report "update").
    expect(r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: 'call_5', status: 'completed' }))).toMatchObject({
      toolStatus: 'completed',
      payload: { description: 'review_security', child_session_id: CHILD },
    });
    for (const [kind, title] of [
      ['completed', 'Complete subagent review_security'],
      ['interacted', 'Interact with subagent review_security'],
      ['interrupted', 'Interrupt subagent review_security'],
    ])
      expect(r.observe(activity(`subagent-${kind}-1`, kind, title))).toBeUndefined();
  });

  it('malformed Codex frames read as absent, never as another agent’s or a throw', () => {
    const r = createSubagentRecognizer();
    const odd = [
      up({ sessionUpdate: 'tool_call', toolCallId: 'm1', title: 'spawnAgent', rawInput: { senderThreadId: ROOT, receiverThreadIds: 'not-a-list' } }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'm2', title: 'spawnAgent', rawInput: null }),
      up({ sessionUpdate: 'tool_call', toolCallId: 'm3', title: 'Start subagent x', rawInput: { agentThreadId: '', activityKind: 'started' } }),
    ];
    for (const u of odd) expect(r.observe(u)).toBeUndefined();
    // A spawn whose receivers and states are of the wrong type: the call is a row, the odd fields absent.
    r.observe(collab('tool_call', 'm4', 'spawnAgent', { prompt: 'p' }, 'in_progress'));
    expect(r.observe(collab('tool_call_update', 'm4', undefined, { receiverThreadIds: [42], agentsStates: 'x', model: 7 }, 'completed'))?.payload).toEqual({
      prompt: 'p',
      is_async: true,
    });
  });
});
