// Gemini CLI (`gemini --acp`, @google/gemini-cli 0.61.0): its recorded traffic end to end into a
// real store on both dialects (recordings/acp/gemini-*.jsonl, recorded offline against the
// scripted Gemini API, test/agents/fake-gemini-api.ts), and its shape in the recognizer alone:
// which frames are launches, what they carry, and that none of its ordinary tool calls is one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSubagentRecognizer } from '../src/acp/index.js';
import { expectGeminiFanout, expectGeminiRefused } from './helpers/acp-expectations.js';
import { loadAcpFixture, replayFixture } from './helpers/acp-fixtures.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const GEMINI = ['gemini-fanout', 'gemini-refused'] as const;

describeBothDialects('ACP intake from recorded Gemini CLI', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('three parallel launches of two agents, each a settled row typed from its title; the main agent’s read_file is no row', async () => {
    const rows = await replayFixture(db, 'gemini-fanout');
    expectGeminiFanout(rows);
    // The recording holds the ordinary call the rows must not include.
    const ids = new Set(loadAcpFixture('gemini-fanout').map((u) => u.update.toolCallId));
    expect([...ids].filter((id) => typeof id === 'string' && id.startsWith('read_file__'))).toHaveLength(1);
  });

  it('the default approval mode: the read-only investigator runs; Gemini refuses the generalist itself, one failed frame each, each a failed row', async () => {
    expectGeminiRefused(await replayFixture(db, 'gemini-refused'));
  });
});

const S = 'gemini-session';
const up = (update: Record<string, unknown>) => ({ sessionId: S, update });
const ID = 'invoke_agent__invoke_agent_1796337949169_1';
const REASON = 'Tool execution for "Generalist Agent" denied by policy.';
const reasonContent = [{ type: 'content', content: { type: 'text', text: REASON } }];

describe('Gemini CLI shape', () => {
  it('a launch as the wire sends it: in_progress then completed, the type from the quoted name, nothing left behind', () => {
    const r = createSubagentRecognizer();
    const start = { toolCallId: ID, title: "Delegating to agent 'generalist'", kind: 'think', content: [], locations: [] };
    expect(r.observe(up({ sessionUpdate: 'tool_call', status: 'in_progress', ...start }))).toEqual({
      acpSessionId: S,
      toolCallId: ID,
      parentToolCallId: null,
      toolStatus: 'in_progress',
      payload: { subagent_type: 'generalist' },
    });
    expect(r.size()).toBe(1);
    expect(r.observe(up({ sessionUpdate: 'tool_call_update', status: 'completed', ...start }))).toMatchObject({
      toolStatus: 'completed',
      payload: { subagent_type: 'generalist' },
    });
    expect(r.size()).toBe(0);
  });

  it('a refusal is one failed frame with no title: recognized by its id and kind, its reason kept as the result text', () => {
    const r = createSubagentRecognizer();
    const got = r.observe(up({ sessionUpdate: 'tool_call_update', toolCallId: ID, kind: 'think', status: 'failed', content: reasonContent }));
    expect(got).toEqual({ acpSessionId: S, toolCallId: ID, parentToolCallId: null, toolStatus: 'failed', payload: { result_text: REASON } });
    expect(r.size()).toBe(0);
  });

  it('a user’s own agent and an id the CLI numbers itself are launches too', () => {
    const r = createSubagentRecognizer();
    const own = r.observe(
      up({ sessionUpdate: 'tool_call', toolCallId: 'invoke_agent__abc', kind: 'think', title: "Delegating to agent 'db-reviewer'", status: 'in_progress' }),
    );
    expect(own?.payload).toEqual({ subagent_type: 'db-reviewer' });
    const numbered = r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'invoke_agent-1796337949169-4', kind: 'think', status: 'in_progress' }));
    expect(numbered?.toolCallId).toBe('invoke_agent-1796337949169-4');
  });

  it('never a launch: Gemini’s ordinary tool calls, even a read of a file named `task` or a think-kind tool', () => {
    const r = createSubagentRecognizer();
    const ordinary = [
      { toolCallId: 'read_file__read_file_1796337949016_0', title: 'NOTES.md', kind: 'read', status: 'in_progress' },
      // OpenCode's launch title and Auggie's launch title, on a Gemini read_file: Gemini's, not theirs.
      { toolCallId: 'read_file__read_file_1796337949016_1', title: 'task', kind: 'read', status: 'in_progress' },
      { toolCallId: 'read_file__read_file_1796337949016_2', title: 'sub-agent-x: y', kind: 'read', status: 'in_progress' },
      { toolCallId: 'update_topic__update_topic_1796337949016_3', title: 'Topic', kind: 'think', status: 'in_progress' },
      { toolCallId: 'run_shell_command__run_shell_command_1796337949016_4', title: 'ls', kind: 'execute', status: 'completed' },
      { toolCallId: 'grep_search__grep_search_1796337949016_5', title: "'Delegating to agent'", kind: 'search', status: 'completed' },
      // Look-alikes of the delegation id: another tool, another kind with no title.
      { toolCallId: 'invoke_agents__invoke_agents_1796337949016_6', title: 'x', kind: 'think', status: 'in_progress' },
      { toolCallId: 'invoke_agentx_1', kind: 'think', status: 'in_progress' },
      { toolCallId: 'invoke_agent__x', kind: 'read', status: 'failed' },
    ];
    for (const update of ordinary) {
      expect(r.observe(up({ sessionUpdate: 'tool_call', ...update })), update.toolCallId).toBeUndefined();
      expect(r.observe(up({ sessionUpdate: 'tool_call_update', ...update, status: 'completed' })), update.toolCallId).toBeUndefined();
    }
    expect(r.size()).toBe(0);
  });

  it('other agents’ launches are still theirs: OpenCode’s `task` and Auggie’s titles with non-Gemini ids', () => {
    const r = createSubagentRecognizer();
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'toolu_fake0002', title: 'task', kind: 'think', status: 'pending' }))).toBeDefined();
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'call_9', title: 'sub-agent-review: Look', kind: 'other' }))?.payload).toMatchObject({
      subagent_type: 'review',
    });
  });

  it('hostile input: wrong types, a throwing getter, a polluted prototype, huge ids and titles (linear time)', () => {
    const r = createSubagentRecognizer();
    const throwingKind = {
      sessionUpdate: 'tool_call',
      toolCallId: ID,
      get kind(): never {
        throw new Error('boom');
      },
    };
    const inputs: unknown[] = [
      up({ sessionUpdate: 'tool_call', toolCallId: ID, kind: 7, title: 42 }),
      up({ sessionUpdate: 'tool_call', toolCallId: ID, kind: ['think'] }),
      up(throwingKind),
      { sessionId: S, update: JSON.parse(`{"sessionUpdate":"tool_call","toolCallId":"${ID}","__proto__":{"kind":"think","title":"Delegating to agent 'x'"}}`) },
    ];
    for (const input of inputs) expect(r.observe(input as never)).toBeUndefined();
    const t0 = performance.now();
    const huge = '_'.repeat(2_000_000);
    expect(r.observe(up({ sessionUpdate: 'tool_call', toolCallId: `a${huge}__a${huge}_1_2`, kind: 'think' }))).toBeUndefined();
    expect(
      r.observe(up({ sessionUpdate: 'tool_call', toolCallId: `read_file__read_file_${'1'.repeat(2_000_000)}_2`, kind: 'read', title: 'NOTES.md' })),
    ).toBeUndefined();
    const name = 'n'.repeat(5_000_000);
    expect(
      r.observe(up({ sessionUpdate: 'tool_call', toolCallId: 'invoke_agent__h', kind: 'think', title: `Delegating to agent '${name}'` }))?.payload
        .subagent_type,
    ).toBe(name);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('recorded traffic: nothing is left of a settled call; each fixture’s launches are exactly its invoke_agent calls', () => {
    for (const name of GEMINI) {
      const r = createSubagentRecognizer();
      const recognized = new Set<string>();
      const all = loadAcpFixture(name);
      for (const u of all) {
        const got = r.observe(u);
        if (got) recognized.add(got.toolCallId);
      }
      const launches = new Set(all.map((u) => u.update.toolCallId).filter((id): id is string => typeof id === 'string' && id.startsWith('invoke_agent__')));
      expect({ name, recognized: [...recognized].sort(), left: r.size() }).toEqual({ name, recognized: [...launches].sort(), left: 0 });
      expect(launches.size).toBe(3);
    }
  });
});
