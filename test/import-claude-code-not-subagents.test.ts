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
import { claudeLines, jsonl } from './helpers/claude-lines.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '22222222-2222-4222-8222-222222222222';
const { line, response, launch, result, notice } = claudeLines(S);

// As Claude Code queues them for the parent: a background subagent's end and a background command's.
const agentLaunch = launch(1, 'toolu_agent', { description: 'Audit', subagent_type: 'auditor', prompt: 'p', run_in_background: true });
const agentLaunched = result(2, 'toolu_agent', { status: 'async_launched', agentId: 'a0123456789abcdef', agentType: 'auditor', isAsync: true });
const agentDone = notice(
  8,
  'toolu_agent',
  '<status>completed</status>\n<summary>Agent "Audit" completed</summary>\n<usage><subagent_tokens>700</subagent_tokens><tool_uses>4</tool_uses><duration_ms>900</duration_ms></usage>',
);
const bashLaunch = launch(3, 'toolu_bash', { command: 'npm test', run_in_background: true }, 'Bash');
const bashLaunched = result(4, 'toolu_bash', { backgroundTaskId: 'b1' });
const bashDone = notice(7, 'toolu_bash', '<status>completed</status>\n<summary>Background command "npm test" completed (exit code 0)</summary>');

// A helper's transcript: the conversation it forks (the session's response again), then its own.
const helperRun = (agentId: string) => [
  line(5, { type: 'user', isSidechain: true, agentId, message: { role: 'user', content: 'summarize' } }),
  { ...response(5, 'msg_toolu_agent'), isSidechain: true, agentId },
  { ...response(6, 'msg_h', [], { input_tokens: 900, output_tokens: 80 }), isSidechain: true, agentId },
];
const HELPERS = ['acompact-7aad72', 'aprompt_suggestion-33a4cf', 'aside_question-94d26433f3755c77'];

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
    writeFileSync(mainFile(), jsonl([line(0, { type: 'user', message: { role: 'user', content: 'go' } }), agentLaunch, agentLaunched]));
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
