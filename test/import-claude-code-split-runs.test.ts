// What an import learns must not depend on where the runs fall (review of 2026-12-05): a
// session first imported while it holds only Claude Code's opening queue operations (no cwd yet)
// still gets its cwd as its task once a line names it; and a background subagent's `failed`
// notice is its agent status whether its sidecar (`finished: true`, which says it stopped, not
// how) is read in the same run or an earlier one; and a launch that fails (its toolUseResult a
// plain string) settles when its result comes a run later. Both dialects, each split run against one run
// of the whole files.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '11111111-1111-4111-8111-111111111111';
const CWD = '/home/dev/app';
let second = 0;
const line = (fields: object) => ({
  sessionId: S,
  cwd: CWD,
  promptId: 'p1',
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second++)).toISOString(),
  ...fields,
});
const queued = (operation: string) => ({ type: 'queue-operation', operation, sessionId: S, timestamp: new Date(Date.UTC(2026, 0, 1)).toISOString() });
const launch = line({
  type: 'assistant',
  message: {
    id: 'msg_1',
    model: 'claude-x',
    role: 'assistant',
    usage: { input_tokens: 10, output_tokens: 5 },
    content: [
      {
        type: 'tool_use',
        id: 'toolu_A',
        name: 'Agent',
        input: { description: 'Background audit', subagent_type: 'auditor', prompt: 'p', run_in_background: true },
      },
    ],
  },
});
const launched = line({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_A', content: 'launched' }] },
  toolUseResult: { status: 'async_launched', agentId: 'aaa', agentType: 'auditor', isAsync: true },
});
const failedNotice = line({
  type: 'queue-operation',
  operation: 'enqueue',
  content:
    '<task-notification><tool-use-id>toolu_A</tool-use-id><status>failed</status><subagent_tokens>500</subagent_tokens><tool_uses>3</tool_uses><duration_ms>1000</duration_ms></task-notification>',
});
const foreground = line({
  type: 'assistant',
  message: {
    id: 'msg_2',
    model: 'claude-x',
    role: 'assistant',
    usage: { input_tokens: 10, output_tokens: 5 },
    content: [{ type: 'tool_use', id: 'toolu_B', name: 'Agent', input: { description: 'Review', subagent_type: 'reviewer', prompt: 'p' } }],
  },
});
// A failed launch's result: is_error, and its toolUseResult a plain string, as for any failed tool.
const failedResult = line({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_B', content: 'Interrupted', is_error: true }] },
  toolUseResult: 'Error: [Request interrupted by user for tool use]',
});
const subagentRun = [
  line({ type: 'user', message: { role: 'user', content: 'audit' } }),
  line({
    type: 'assistant',
    message: { id: 'msg_s1', model: 'claude-x', role: 'assistant', usage: { input_tokens: 3, output_tokens: 4 }, content: [{ type: 'text', text: 'x' }] },
  }),
];
const sidecar = { agentType: 'auditor', description: 'Background audit', toolUseId: 'toolu_A', spawnDepth: 1, model: 'claude-x', finished: true };

const jsonl = (lines: object[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

describeBothDialects('import claude-code: the same rows however the runs fall', (dialect) => {
  let split: ProxyStore;
  let whole: ProxyStore;
  let trees: string[];
  beforeEach(async () => {
    split = await openProxyStore(dialect);
    whole = await openProxyStore(dialect);
    trees = [mkdtempSync(join(tmpdir(), 'claude-split-')), mkdtempSync(join(tmpdir(), 'claude-whole-'))];
  });
  afterEach(async () => {
    await split.close();
    await whole.close();
    for (const t of trees) rmSync(t, { recursive: true, force: true });
  });

  /** Writes the session's main transcript (and, with `subagent`, its subagent's run and sidecar) under `tree`. */
  function write(tree: string, main: object[], subagent: boolean): string {
    const file = join(tree, 'proj', `${S}.jsonl`);
    mkdirSync(join(tree, 'proj', S, 'subagents'), { recursive: true });
    writeFileSync(file, jsonl(main));
    if (subagent) {
      writeFileSync(join(tree, 'proj', S, 'subagents', 'agent-aaa.jsonl'), jsonl(subagentRun));
      writeFileSync(join(tree, 'proj', S, 'subagents', 'agent-aaa.meta.json'), JSON.stringify(sidecar));
    }
    return file;
  }

  const tasks = (store: ProxyStore) => store.query<{ id: string; task_id: string }>('SELECT id, task_id FROM task_sessions ORDER BY id');
  const statuses = (store: ProxyStore) =>
    store.query<Record<string, unknown>>('SELECT tool_call_id, task_id, tool_status, agent_status FROM task_session_subagents ORDER BY tool_call_id');

  it('a session imported while it holds only its opening queue operations (no cwd) gets its cwd as its task once a line names it', async () => {
    const [piece, full] = trees;
    const opening = [queued('enqueue'), queued('dequeue')];
    const rest = [line({ type: 'user', message: { role: 'user', content: 'go' } }), launch, launched];
    const file = write(piece, opening, false);
    const first = await importInto(split, piece);
    appendFileSync(file, jsonl(rest));
    const second = await importInto(split, piece);
    write(full, [...opening, ...rest], false);
    const once = await importInto(whole, full);
    // The summaries count committed lines: the first run wrote nothing and counts nothing (it
    // used to count the two lines, then the second run counted them again).
    expect(first.summary).toMatchObject({ transcripts: 0, lines: 0, bytes: 0 });
    expect(second.summary).toMatchObject({ transcripts: 1, lines: 5, bytes: once.summary.bytes });
    expect(once.summary).toMatchObject({ transcripts: 1, lines: 5 });
    expect(await tasks(whole)).toEqual([{ id: S, task_id: CWD }]);
    expect(await tasks(split)).toEqual(await tasks(whole));
    expect(await statuses(split)).toEqual(await statuses(whole));
  });

  it('a launch that fails without a toolUseResult object settles as failed when its result comes in a later import than its launch', async () => {
    const [piece, full] = trees;
    const file = write(piece, [foreground], false);
    await importInto(split, piece);
    expect(await statuses(split)).toEqual([expect.objectContaining({ tool_call_id: 'toolu_B', tool_status: 'pending' })]);
    appendFileSync(file, jsonl([failedResult]));
    await importInto(split, piece);
    write(full, [foreground, failedResult], false);
    await importInto(whole, full);
    expect(await statuses(whole)).toEqual([expect.objectContaining({ tool_call_id: 'toolu_B', tool_status: 'failed' })]);
    expect(await statuses(split)).toEqual(await statuses(whole));
    const settled = (store: ProxyStore) => store.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM task_session_subagents WHERE settled_at IS NOT NULL');
    expect(Number((await settled(split))[0].n)).toBe(1);
  });

  it("a background subagent's failed notice is its agent status, whether its sidecar is read in the same run or before", async () => {
    const [piece, full] = trees;
    const file = write(piece, [launch, launched], true);
    await importInto(split, piece);
    appendFileSync(file, jsonl([failedNotice]));
    await importInto(split, piece);
    write(full, [launch, launched, failedNotice], true);
    await importInto(whole, full);
    expect(await statuses(whole)).toEqual([expect.objectContaining({ tool_call_id: 'toolu_A', task_id: CWD, agent_status: 'failed' })]);
    expect(await statuses(split)).toEqual(await statuses(whole));
  });
});
