// What lives beside Claude Code's subagents and is not one (review of the importer, 2026-12-07):
// - its own helper agents' transcripts in the subagents' folder (`agent-acompact-<hex>`,
//   `agent-aprompt_suggestion-<hex>`, `agent-aside_question-<hex>`), which no tool call
//   launches: each import used to WARN about them and count them deferred, forever;
// - a background shell command's end, announced by the same `<task-notification>` as a
//   background subagent's: it used to write a subagent row for the Bash call that nothing
//   ever settled.
// Both dialects; the notification of a subagent launched by an earlier import still counts.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto, referenceUsage } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '22222222-2222-4222-8222-222222222222';
let second = 0;
const line = (fields: object) => ({
  sessionId: S,
  cwd: '/home/dev/app',
  promptId: 'p1',
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString(),
  ...fields,
});
const assistant = (id: string, content: object[], usage = { input_tokens: 10, output_tokens: 5 }) =>
  line({ type: 'assistant', message: { id, model: 'claude-x', role: 'assistant', usage, content } });
const toolUse = (id: string, name: string, input: object) => ({ type: 'tool_use', id, name, input });
const result = (id: string, toolUseResult: unknown) =>
  line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] }, toolUseResult });
// As Claude Code queues them for the parent: a background subagent's end and a background command's.
const notice = (toolUseId: string, summary: string, extra = '') =>
  line({
    type: 'queue-operation',
    operation: 'enqueue',
    content: `<task-notification>\n<task-id>t-${toolUseId}</task-id>\n<tool-use-id>${toolUseId}</tool-use-id>\n<output-file>/tmp/t.output</output-file>\n<status>completed</status>\n<summary>${summary}</summary>${extra}\n</task-notification>`,
  });

const agentLaunch = assistant('msg_1', [
  toolUse('toolu_agent', 'Agent', { description: 'Audit', subagent_type: 'auditor', prompt: 'p', run_in_background: true }),
]);
const agentLaunched = result('toolu_agent', { status: 'async_launched', agentId: 'a0123456789abcdef', agentType: 'auditor', isAsync: true });
const agentDone = notice(
  'toolu_agent',
  'Agent "Audit" completed',
  '\n<usage><subagent_tokens>700</subagent_tokens><tool_uses>4</tool_uses><duration_ms>900</duration_ms></usage>',
);
const bashLaunch = assistant('msg_2', [toolUse('toolu_bash', 'Bash', { command: 'npm test', run_in_background: true })]);
const bashLaunched = result('toolu_bash', { backgroundTaskId: 'b1' });
const bashDone = notice('toolu_bash', 'Background command "npm test" completed (exit code 0)');

// A helper's transcript: the conversation it forks (the session's response again), then its own.
const helperRun = (agentId: string) => [
  line({ type: 'user', isSidechain: true, agentId, message: { role: 'user', content: 'summarize' } }),
  line({
    type: 'assistant',
    isSidechain: true,
    agentId,
    message: { id: 'msg_1', model: 'claude-x', role: 'assistant', usage: { input_tokens: 10, output_tokens: 5 }, content: [] },
  }),
  line({
    type: 'assistant',
    isSidechain: true,
    agentId,
    message: { id: 'msg_h', model: 'claude-x', role: 'assistant', usage: { input_tokens: 900, output_tokens: 80 }, content: [] },
  }),
];
const HELPERS = ['acompact-7aad72', 'aprompt_suggestion-33a4cf', 'aside_question-94d26433f3755c77'];

const jsonl = (lines: object[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

describeBothDialects('import claude-code: what is not a subagent', (dialect) => {
  let store: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-not-subagents-'));
    mkdirSync(join(tree, 'proj', S, 'subagents'), { recursive: true });
  });
  afterEach(async () => {
    await store.close();
    rmSync(tree, { recursive: true, force: true });
  });
  const mainFile = () => join(tree, 'proj', `${S}.jsonl`);
  const rows = () =>
    store.query<Record<string, unknown>>('SELECT tool_call_id, tool_status, agent_status, total_tokens FROM task_session_subagents ORDER BY tool_call_id');
  const ledger = () =>
    store.query<{ model: string; input_tokens: unknown; output_tokens: unknown }>(
      'SELECT model, input_tokens, output_tokens FROM task_session_parent_usage ORDER BY model',
    );

  it("Claude Code's helper agents' transcripts are counted, never read, and leave no WARN and nothing deferred, run after run", async () => {
    writeFileSync(mainFile(), jsonl([line({ type: 'user', message: { role: 'user', content: 'go' } }), agentLaunch, agentLaunched]));
    for (const id of HELPERS) writeFileSync(join(tree, 'proj', S, 'subagents', `agent-${id}.jsonl`), jsonl(helperRun(id)));
    const runs = [await importInto(store, tree), await importInto(store, tree)];
    for (const run of runs) {
      expect(run.warns).toEqual([]);
      expect(run.summary).toMatchObject({ deferred: 0, helperTranscripts: 3 });
    }
    expect((await rows()).map((r) => r.tool_call_id)).toEqual(['toolu_agent']);
    // The session's usage is its main transcript's alone: the helpers' repeat of msg_1 is not counted again.
    const reference = referenceUsage(mainFile()).get('claude-x')!;
    expect((await ledger()).map((r) => ({ model: r.model, input: Number(r.input_tokens), output: Number(r.output_tokens) }))).toEqual([
      { model: 'claude-x', input: reference.input_tokens, output: reference.output_tokens },
    ]);
  });

  it("a background command's end writes no row; a background subagent's does, in the same run as its launch or a later one", async () => {
    writeFileSync(mainFile(), jsonl([agentLaunch, agentLaunched, bashLaunch, bashLaunched]));
    await importInto(store, tree);
    appendFileSync(mainFile(), jsonl([bashDone, agentDone]));
    const later = await importInto(store, tree);
    expect(later.warns).toEqual([]);
    const split = await rows();
    expect(split).toEqual([expect.objectContaining({ tool_call_id: 'toolu_agent', agent_status: 'completed' })]);
    expect(Number(split[0].total_tokens)).toBe(700);

    const whole = await openProxyStore(dialect);
    try {
      writeFileSync(mainFile(), jsonl([agentLaunch, agentLaunched, bashLaunch, bashLaunched, bashDone, agentDone]));
      await importInto(whole, tree);
      const once = await whole.query<Record<string, unknown>>(
        'SELECT tool_call_id, tool_status, agent_status, total_tokens FROM task_session_subagents ORDER BY tool_call_id',
      );
      expect(once).toEqual(split);
    } finally {
      await whole.close();
    }
  });
});
