// A nested background subagent (a subagent's own launch with run_in_background): Claude Code
// 2.1.335 queues its end notice in the MAIN transcript (observed offline, the scratch run kept in
// no fixture), while its launch is in its parent subagent's transcript, which the import reads
// after the main one. The notice created the row: `observed_at` was the notice's instant, later
// than the `settled_at` its launch's result gave. The launch line, read later, now moves the row's
// `observed_at` and its message row's `created_at` back to its own instant. Both dialects.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { subagentMessageId } from '../src/proxy/proxy-database.js';
import { openPostgresProxyDatabase } from '../src/proxy/postgres-proxy-database.js';
import { openSqliteProxyDatabase } from '../src/proxy/sqlite-proxy-database.js';
import { importInto } from './helpers/claude-import.js';
import { claudeLines, jsonl } from './helpers/claude-lines.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '77777777-7777-4777-8777-777777777777';
const PARENT = 'a2fe8ba156bb6f77f';
const NESTED = 'accea3de9919fc81c';
const { line, response, launch, result, notice } = claudeLines(S);
const answer = (second: number, id: string) => response(second, id, [{ type: 'text', text: 'x' }], { input_tokens: 3, output_tokens: 4 });

const main = [
  line(0, { type: 'user', message: { role: 'user', content: 'review' } }),
  launch(1, 'toolu_P', { description: 'Review style', prompt: 'p' }),
  // The user's next prompt comes before the nested subagent ends: its notice is in the later turn.
  { ...line(5, { type: 'user', message: { role: 'user', content: 'and now?' } }), promptId: 'p2' },
  // Queue operations carry no promptId (2.1.335): the notice belongs to the turn read last.
  notice(
    6,
    'toolu_N',
    '<status>completed</status>\n<summary>Agent "Nested check" completed</summary>\n<usage><subagent_tokens>744</subagent_tokens><tool_uses>1</tool_uses><duration_ms>900</duration_ms></usage>',
  ),
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
        "SELECT parent_tool_call_id, turn_id, agent_status, total_tokens, is_async, CAST(observed_at AS TEXT) AS observed_at, CAST(settled_at AS TEXT) AS settled_at FROM task_session_subagents WHERE tool_call_id = 'toolu_N' AND agent_execution_id <> 'exec-live'",
      )
    )[0];
  const launchInstant = dialect === 'sqlite' ? '2026-01-01 00:00:03.000000+00:00' : '2026-01-01 00:00:03';

  it('its row begins at its launch’s instant, not its notice’s, and takes the notice’s figures', async () => {
    const run = await importInto(store, tree);
    expect(run.warns).toEqual([]);
    expect(run.summary).toMatchObject({ transcripts: 3, deferred: 0, lines: main.length + parentRun.length + nestedRun.length });
    const row = await nestedRow();
    // The launch's turn (p1), not the notice's (p2), on the row and on its message row.
    expect(row).toMatchObject({ parent_tool_call_id: 'toolu_P', turn_id: 'p1', agent_status: 'completed', observed_at: launchInstant });
    const [message] = await store.query<{ turn_id: string }>(`SELECT turn_id FROM task_session_messages WHERE id = '${subagentMessageId(S, 'toolu_N')}'`);
    expect(message.turn_id).toBe('p1');
    expect(Number(row.total_tokens)).toBe(744);
    expect(String(row.settled_at) >= String(row.observed_at)).toBe(true);
    const again = await importInto(store, tree);
    expect(again.summary).toMatchObject({ transcripts: 0, lines: 0 });
  });

  it("a live writer's message row for the same call keeps its own first instant and turn", async () => {
    // The proxy recorded the same Claude Code session: its message row for the nested call (the id is per session and tool call) came first.
    const liveAt = BigInt(Date.UTC(2026, 0, 1, 0, 0, 3)) * 1_000_000n + 200_000_000n;
    const options = { executionId: 'exec-live', logger: { warn: () => {} }, clock: () => liveAt };
    const [flag, where] = store.args;
    const proxy = flag === '--sqlite' ? openSqliteProxyDatabase(where, options) : openPostgresProxyDatabase(where, options);
    try {
      expect((await proxy.prepare()).ok).toBe(true);
      const job = { kind: 'subagent', sessionId: S, taskId: '/home/dev/app', turnId: 'live-turn', toolCallId: 'toolu_N', parentToolCallId: 'toolu_P' } as const;
      await proxy.write(
        [
          { kind: 'session', sessionId: S, taskId: '/home/dev/app' },
          { ...job, toolStatus: 'pending', messageStatus: 'pending', payload: {} },
        ],
        liveAt,
      );
    } finally {
      await proxy.close();
    }
    await importInto(store, tree);
    const [message] = await store.query<{ turn_id: string; created_at: string }>(
      `SELECT turn_id, CAST(created_at AS TEXT) AS created_at FROM task_session_messages WHERE id = '${subagentMessageId(S, 'toolu_N')}'`,
    );
    expect(message).toEqual({ turn_id: 'live-turn', created_at: dialect === 'sqlite' ? '2026-01-01 00:00:03.200000+00:00' : '2026-01-01 00:00:03.2' });
    // The import's own row still begins at its launch.
    expect(await nestedRow()).toMatchObject({ turn_id: 'p1', observed_at: launchInstant });
  });

  it('two parents, each with a nested notice, and a launch after the first notice: every row begins at its launch, no WARN', async () => {
    // Main: P1 launched, N1's notice, P2 launched, N2's notice, then both results; P1 and P2 each launch one background subagent.
    const P2 = 'a3b8e0f4c2d6a9b17';
    const N2 = 'a5d1c7e9b3f2a4c68';
    const subagents = join(tree, 'proj', S, 'subagents');
    writeFileSync(
      join(tree, 'proj', `${S}.jsonl`),
      jsonl([
        launch(1, 'toolu_P', { description: 'one', prompt: 'p' }),
        notice(6, 'toolu_N', '<status>completed</status>\n<usage><subagent_tokens>9</subagent_tokens></usage>'),
        launch(7, 'toolu_P2', { description: 'two', prompt: 'p' }),
        notice(12, 'toolu_N2', '<status>completed</status>\n<usage><subagent_tokens>9</subagent_tokens></usage>'),
        result(13, 'toolu_P', { status: 'completed', agentId: PARENT }),
        result(14, 'toolu_P2', { status: 'completed', agentId: P2 }),
      ]),
    );
    writeFileSync(
      join(subagents, `agent-${P2}.jsonl`),
      jsonl([launch(9, 'toolu_N2', { description: 'nested two', prompt: 'q', run_in_background: true }), result(9, 'toolu_N2'), answer(10, 'msg_p2b')]),
    );
    writeFileSync(join(subagents, `agent-${P2}.meta.json`), JSON.stringify({ ...sidecars[PARENT], toolUseId: 'toolu_P2' }));
    writeFileSync(join(subagents, `agent-${N2}.jsonl`), jsonl([answer(11, 'msg_n2')]));
    writeFileSync(join(subagents, `agent-${N2}.meta.json`), JSON.stringify({ ...sidecars[NESTED], toolUseId: 'toolu_N2', parentAgentId: P2 }));
    const run = await importInto(store, tree);
    expect(run.warns).toEqual([]);
    expect(run.summary).toMatchObject({ transcripts: 5, deferred: 0 });
    const rows = await store.query<{ tool_call_id: string; observed_at: string; settled_at: string }>(
      'SELECT tool_call_id, CAST(observed_at AS TEXT) AS observed_at, CAST(settled_at AS TEXT) AS settled_at FROM task_session_subagents ORDER BY tool_call_id',
    );
    const created = async (toolCallId: string) =>
      (await store.query<{ c: string }>(`SELECT CAST(created_at AS TEXT) AS c FROM task_session_messages WHERE id = '${subagentMessageId(S, toolCallId)}'`))[0]
        .c;
    const seen = [];
    for (const r of rows) seen.push([r.tool_call_id, r.observed_at, await created(r.tool_call_id)]);
    const instant = (second: number) => (dialect === 'sqlite' ? `2026-01-01 00:00:0${second}.000000+00:00` : `2026-01-01 00:00:0${second}`);
    expect(seen).toEqual([
      ['toolu_N', instant(3), instant(3)],
      ['toolu_N2', instant(9), instant(9)],
      ['toolu_P', instant(1), instant(1)],
      ['toolu_P2', instant(7), instant(7)],
    ]);
    for (const r of rows) expect(r.settled_at >= r.observed_at).toBe(true);
  });
});
