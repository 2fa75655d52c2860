// "Never blind in silence": a tool call that looks like a delegation but matches no known
// agent's shape raises recorder.counters().unrecognized_delegations (once per distinct call) and
// one WARN per distinct title; ordinary tools never do, and a recognised subagent never does.
// The recorded traffic of every agent the package knows, replayed with that agent's shape left
// out, must raise it: the package notices when the next agent (or version) is one it cannot read.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAcpRecorder } from '../src/acp/index.js';
import { recognizerWithShapes, SHAPES } from '../src/acp/recognizer.js';
import type { UnrecognizedDelegation } from '../src/acp/types.js';
import { acpSessionOf, contextFor, loadAcpFixture, type AcpFixtureName } from './helpers/acp-fixtures.js';
import { steppingClock } from './helpers/clock.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const ACP = 'acp-session-1';
const at = (update: Record<string, unknown>) => ({ sessionId: ACP, update });

/** A made-up agent's delegation, three ways, with ordinary calls of every ordinary kind around it. */
const UNKNOWN_AGENT = [
  at({ sessionUpdate: 'tool_call', toolCallId: 'n1', title: "Delegating to agent 'reviewer'", kind: 'think', status: 'pending' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'n1', status: 'in_progress' }),
  at({ sessionUpdate: 'tool_call_update', toolCallId: 'n1', status: 'completed', title: "Delegating to agent 'reviewer'" }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'n2', title: "Delegating to agent 'reviewer'", kind: 'think', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'n3', title: 'spawnWorker', kind: 'other', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'n4', title: 'Run', kind: 'other', status: 'pending', _meta: { vendor: { toolName: 'sub_agent' } } }),
  // Ordinary tools, whatever their titles say.
  at({ sessionUpdate: 'tool_call', toolCallId: 'o1', title: 'Read AGENTS.md', kind: 'read', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o2', title: 'Edit src/agent.ts', kind: 'edit', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o3', title: 'grep spawn', kind: 'search', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o4', title: 'npm run agent:build', kind: 'execute', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o5', title: 'Think', kind: 'think', status: 'pending' }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o6', title: 'Management report', kind: 'other', status: 'pending' }),
  at({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'I will delegate to an agent.' } }),
  // Claude's own tools that only name an agent: known, never counted.
  at({ sessionUpdate: 'tool_call', toolCallId: 'o7', title: 'SubagentHandback', kind: 'other', _meta: { claudeCode: { toolName: 'SubagentHandback' } } }),
  at({ sessionUpdate: 'tool_call', toolCallId: 'o8', title: 'ListAgents', kind: 'other', _meta: { claudeCode: { toolName: 'ListAgents' } } }),
  // A subagent_update the recognizer cannot read (no child session id).
  at({ sessionUpdate: 'subagent_update', title: 'broken' }),
];

it('the recognizer reports each distinct lookalike once, with its reason; ordinary and known tools never', () => {
  const seen: UnrecognizedDelegation[] = [];
  const recognizer = recognizerWithShapes(SHAPES, { onUnrecognizedDelegation: (d) => void seen.push(d) });
  for (const u of UNKNOWN_AGENT) expect(recognizer.observe(u)).toBeUndefined();
  expect(seen.map((d) => [d.id, d.reason])).toEqual([
    ['n1', 'title'],
    ['n2', 'title'],
    ['n3', 'title'],
    ['n4', 'tool name "sub_agent"'],
    ['subagent_update', 'a subagent_update without a child session id'],
  ]);
  expect(recognizer.size()).toBe(0); // nothing remembered for calls that are not subagents
});

it("a known agent's renamed delegation tool is reported by its tool name; a callback that throws never breaks recognition", () => {
  const seen: string[] = [];
  const recognizer = recognizerWithShapes(SHAPES, {
    onUnrecognizedDelegation: (d) => {
      seen.push(d.reason);
      throw new Error('host bug');
    },
  });
  expect(
    recognizer.observe(at({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Spawn', _meta: { claudeCode: { toolName: 'SpawnAgent' } } })),
  ).toBeUndefined();
  expect(recognizer.observe(at({ sessionUpdate: 'tool_call', toolCallId: 'c2', title: 'Read', _meta: { claudeCode: { toolName: 'Read' } } }))).toBeUndefined();
  expect(seen).toEqual(['tool name "SpawnAgent"']);
});

it("Gemini CLI's and Codex's renamed delegation tools are reported by the name each agent gives its tool; their ordinary tools and collab items never", () => {
  const seen: [string, string][] = [];
  const recognizer = recognizerWithShapes(SHAPES, { onUnrecognizedDelegation: (d) => void seen.push([d.id, d.reason]) });
  const collab = { senderThreadId: 't0', receiverThreadIds: ['t1'], agentsStates: {}, prompt: 'Review', model: '', status: 'inProgress' };
  const updates = [
    // Gemini names its tool in the id: an earlier CLI's `delegate_to_agent`, and ordinary tools.
    at({ sessionUpdate: 'tool_call', toolCallId: 'delegate_to_agent__delegate_to_agent_1796337949016_0', title: "Delegating to agent 'x'", kind: 'think' }),
    at({ sessionUpdate: 'tool_call', toolCallId: 'read_file__read_file_1796337949016_1', title: 'agents.md', kind: 'read' }),
    at({ sessionUpdate: 'tool_call', toolCallId: 'save_memory__save_memory_1796337949016_2', title: 'Save the agent notes', kind: 'think' }),
    // Codex names it in its collab item's title, or its activity kind.
    at({ sessionUpdate: 'tool_call', toolCallId: 'call_a', title: 'spawn_agent', kind: 'other', rawInput: collab }),
    at({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_b',
      title: 'Spawn subagent x',
      kind: 'other',
      rawInput: { agentThreadId: 't9', agentPath: '/root/x', activityKind: 'spawned' },
    }),
    at({ sessionUpdate: 'tool_call', toolCallId: 'call_c', title: 'closeAgent', kind: 'other', rawInput: collab }),
    at({ sessionUpdate: 'tool_call', toolCallId: 'call_d', title: 'resumeAgent', kind: 'other', rawInput: collab }),
    at({ sessionUpdate: 'tool_call', toolCallId: 'call_e', title: 'wait', kind: 'other', rawInput: collab }),
    at({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_f',
      title: 'Complete subagent x',
      kind: 'other',
      rawInput: { agentThreadId: 't9', agentPath: '/root/x', activityKind: 'completed' },
    }),
  ];
  for (const u of updates) expect(recognizer.observe(u)).toBeUndefined();
  expect(seen).toEqual([
    ['delegate_to_agent__delegate_to_agent_1796337949016_0', 'tool name "delegate_to_agent"'],
    ['call_a', 'tool name "spawn_agent"'],
    ['call_b', 'tool name "spawned"'],
  ]);
});

describeBothDialects('unrecognized delegations through the recorder', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('counts distinct calls, WARNs once per distinct title, writes nothing for them', async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock() });
    const recorder = createAcpRecorder(store, { context: contextFor(ACP), logger });
    for (const u of UNKNOWN_AGENT) expect(await recorder.sessionUpdate(u)).toBeUndefined();
    expect(recorder.counters()).toMatchObject({ unrecognized_delegations: 5, recorded: 0, updates: UNKNOWN_AGENT.length });
    const warns = logger.lines;
    expect(warns.map((w) => w.fields.title)).toEqual(["Delegating to agent 'reviewer'", 'spawnWorker', 'Run', null]);
    for (const w of warns) expect(w.msg).toMatch(/matches no known agent/);
    expect(await store.listBySession('s1')).toEqual([]);
  });

  it("the host's own onUnrecognizedDelegation is called once per call, after the count and the WARN; one that throws changes neither", async () => {
    const logger = recordingLogger();
    const seen: string[] = [];
    const recorder = createAcpRecorder(db.store({ clock: steppingClock() }), {
      context: contextFor(ACP),
      logger,
      recognizer: {
        onUnrecognizedDelegation: (d) => {
          seen.push(d.id);
          throw new Error('host bug');
        },
      },
    });
    for (const u of UNKNOWN_AGENT) expect(await recorder.sessionUpdate(u)).toBeUndefined();
    expect(seen).toEqual(['n1', 'n2', 'n3', 'n4', 'subagent_update']);
    expect(recorder.counters().unrecognized_delegations).toBe(5);
    expect(logger.lines).toHaveLength(4);
  });

  const everyRecording: AcpFixtureName[] = [
    'claude-fanout',
    'claude-subagents-capability',
    'claude-refused',
    'opencode-fanout',
    'codex-fanout',
    'codex-subagents-capability',
    'codex-multi-agent-v2',
    'gemini-fanout',
    'gemini-refused',
    'qwen-fanout',
  ];
  for (const name of everyRecording) {
    it(`${name}: every recognised subagent, no unrecognized delegation`, async () => {
      const logger = recordingLogger();
      const recorder = createAcpRecorder(db.store({ clock: steppingClock() }), { context: contextFor(acpSessionOf(name)), logger });
      for (const u of loadAcpFixture(name)) await recorder.sessionUpdate(u);
      expect(recorder.counters().recorded).toBeGreaterThan(0);
      expect(recorder.counters().unrecognized_delegations).toBe(0);
      expect(logger.lines).toEqual([]);
    });
  }
});

// Each recording with its agent's shape left out: the package must notice it is blind. Every
// tool call the full recognizer records is then reported (a few of the agent's own tools that
// only name an agent, such as Claude's SubagentHandback, may be reported beside them: with the
// agent unknown, nothing says they are not launches).
const BLIND: [AcpFixtureName, string][] = [
  ['claude-fanout', 'claude'],
  ['claude-refused', 'claude'],
  ['gemini-fanout', 'gemini'],
  ['gemini-refused', 'gemini'],
  ['qwen-fanout', 'qwen'],
  ['codex-fanout', 'codex'],
  ['codex-multi-agent-v2', 'codex'],
];

for (const [name, agent] of BLIND) {
  it(`${name} without the ${agent} shape: each launch is an unrecognized delegation, with a WARN`, async () => {
    const full = recognizerWithShapes(SHAPES);
    const launches = new Set<string>();
    for (const u of loadAcpFixture(name)) {
      const r = full.observe(u);
      if (r) launches.add(r.toolCallId);
    }
    expect(launches.size).toBeGreaterThan(0);
    const seen = new Set<string>();
    const blind = recognizerWithShapes(
      SHAPES.filter((s) => s.agent !== agent),
      { onUnrecognizedDelegation: (d) => void seen.add(d.id) },
    );
    let recognized = 0;
    for (const u of loadAcpFixture(name)) if (blind.observe(u)) recognized++;
    expect(recognized).toBe(0);
    expect([...launches].filter((id) => !seen.has(id))).toEqual([]);
  });
}
