// A nested background subagent (a subagent's own launch with run_in_background): Claude Code
// 2.1.335 queues its end notice in the MAIN transcript (observed offline, the scratch run kept in
// no fixture), while its launch is in its parent subagent's transcript, which the import reads
// after the main one. The notice created the row: `observed_at` was the notice's instant, later
// than the `settled_at` its launch's result gave. The main transcript now stops before such a
// notice while the launch has no row, and is read again after the session's subagents; a launch
// that still has none then does not hold the main transcript back. Both dialects.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '77777777-7777-4777-8777-777777777777';
const PARENT = 'a2fe8ba156bb6f77f';
const NESTED = 'accea3de9919fc81c';
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const line = (second: number, fields: object) => ({ sessionId: S, cwd: '/home/dev/app', promptId: 'p1', timestamp: at(second), ...fields });
const launch = (second: number, id: string, input: object) =>
  line(second, {
    type: 'assistant',
    message: {
      id: `msg_${id}`,
      model: 'claude-x',
      role: 'assistant',
      usage: { input_tokens: 10, output_tokens: 5 },
      content: [{ type: 'tool_use', id, name: 'Agent', input }],
    },
  });
const result = (second: number, id: string, toolUseResult?: object) =>
  line(second, {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
    ...(toolUseResult ? { toolUseResult } : {}),
  });
const answer = (second: number, id: string) =>
  line(second, {
    type: 'assistant',
    message: { id, model: 'claude-x', role: 'assistant', usage: { input_tokens: 3, output_tokens: 4 }, content: [{ type: 'text', text: 'x' }] },
  });

const main = [
  line(0, { type: 'user', message: { role: 'user', content: 'review' } }),
  launch(1, 'toolu_P', { description: 'Review style', prompt: 'p' }),
  line(6, {
    type: 'queue-operation',
    operation: 'enqueue',
    content: `<task-notification>\n<task-id>${NESTED}</task-id>\n<tool-use-id>toolu_N</tool-use-id>\n<status>completed</status>\n<summary>Agent "Nested check" completed</summary>\n<usage><subagent_tokens>744</subagent_tokens><tool_uses>1</tool_uses><duration_ms>900</duration_ms></usage>\n</task-notification>`,
  }),
  result(7, 'toolu_P', { status: 'completed', agentId: PARENT, agentType: 'general-purpose', totalTokens: 805 }),
  answer(8, 'msg_done'),
];
// The parent subagent launches the nested one in the background; its result (no toolUseResult) says it was launched.
const parentRun = [
  line(2, { type: 'user', message: { role: 'user', content: 'p' } }),
  launch(3, 'toolu_N', { description: 'Nested check', prompt: 'q', run_in_background: true }),
  result(3, 'toolu_N'),
  answer(4, 'msg_p2'),
];
const nestedRun = [line(4, { type: 'user', message: { role: 'user', content: 'q' } }), answer(5, 'msg_n1')];
const sidecars = {
  [PARENT]: { agentType: 'general-purpose', description: 'Review style', toolUseId: 'toolu_P', spawnDepth: 1, requestShape: 'foreground', finished: true },
  [NESTED]: {
    agentType: 'general-purpose',
    description: 'Nested check',
    toolUseId: 'toolu_N',
    parentAgentId: PARENT,
    spawnDepth: 2,
    requestShape: 'background',
    finished: true,
  },
};
const jsonl = (lines: object[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

describeBothDialects('import claude-code: a nested background subagent', (dialect) => {
  let store: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-nested-bg-'));
    const subagents = join(tree, 'proj', S, 'subagents');
    mkdirSync(subagents, { recursive: true });
    writeFileSync(join(tree, 'proj', `${S}.jsonl`), jsonl(main));
    for (const [agent, run] of [
      [PARENT, parentRun],
      [NESTED, nestedRun],
    ] as const) {
      writeFileSync(join(subagents, `agent-${agent}.jsonl`), jsonl(run));
      writeFileSync(join(subagents, `agent-${agent}.meta.json`), JSON.stringify(sidecars[agent]));
    }
  });
  afterEach(async () => {
    await store.close();
    rmSync(tree, { recursive: true, force: true });
  });
  const nestedRow = async () =>
    (
      await store.query<Record<string, unknown>>(
        "SELECT parent_tool_call_id, agent_status, total_tokens, is_async, CAST(observed_at AS TEXT) AS observed_at, CAST(settled_at AS TEXT) AS settled_at FROM task_session_subagents WHERE tool_call_id = 'toolu_N'",
      )
    )[0];
  const launchInstant = dialect === 'sqlite' ? '2026-01-01 00:00:03.000000+00:00' : '2026-01-01 00:00:03';

  it('its row is created by its launch, with the launch’s instants, and takes the notice’s figures, in one run', async () => {
    const run = await importInto(store, tree);
    expect(run.warns).toEqual([]);
    expect(run.summary).toMatchObject({ transcripts: 3, deferred: 0, lines: main.length + parentRun.length + nestedRun.length });
    const row = await nestedRow();
    expect(row).toMatchObject({ parent_tool_call_id: 'toolu_P', agent_status: 'completed', observed_at: launchInstant });
    expect(Number(row.total_tokens)).toBe(744);
    expect(String(row.settled_at) >= String(row.observed_at)).toBe(true);
    const again = await importInto(store, tree);
    expect(again.summary).toMatchObject({ transcripts: 0, lines: 0 });
  });

  it('a launch that cannot be read yet does not hold the main transcript back: the notice is written on its second reading', async () => {
    rmSync(join(tree, 'proj', S, 'subagents', `agent-${PARENT}.jsonl`));
    const run = await importInto(store, tree);
    // The main transcript is read to its end in this run; the nested transcript, whose launch had no row when its turn came, in the next.
    expect(run.summary).toMatchObject({ transcripts: 1, lines: main.length, deferred: 1 });
    const row = await nestedRow();
    expect(row).toMatchObject({ agent_status: 'completed' });
    expect(Number(row.total_tokens)).toBe(744);
    const next = await importInto(store, tree);
    expect(next.warns).toEqual([]);
    expect(next.summary).toMatchObject({ transcripts: 1, lines: nestedRun.length, deferred: 0 });
  });
});
