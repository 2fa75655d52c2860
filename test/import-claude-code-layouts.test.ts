// What a Claude Code folder holds beyond the two layouts the importer reads (review of the
// importer, 2026-12-07, second round), both dialects:
// - the agents of a `Workflow` run, in `subagents/workflows/wf_<run>/agent-<id>.jsonl` (as parsers
//   of the folder describe it, captured on 2.1.170): no tool call is any one agent's launch. The
//   import used to pass over them in silence; it now counts them, WARNs once a run, reads none;
// - a byte order mark before a transcript's first line (an editor's): that line was malformed;
// - a project folder copied beside its original: the progress bar's total counted both copies,
//   and the bar stopped halfway.
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto, referenceUsage } from './helpers/claude-import.js';
import { claudeLines, jsonl } from './helpers/claude-lines.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '66666666-6666-4666-8666-666666666666';
const { line, response, launch, result } = claudeLines(S);
const UNREAD_WARN = /not imported: their agents have no subagent rows and their usage is not in the ledger/;

describeBothDialects('import claude-code: layouts it does not read, a BOM, a copied folder', (dialect) => {
  let store: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-layouts-'));
    mkdirSync(join(tree, 'proj'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(tree, { recursive: true, force: true });
  });
  const mainFile = (project = 'proj') => join(tree, project, `${S}.jsonl`);
  const parentUsage = async () =>
    (
      await store.query<{ model: string; requests: unknown; input_tokens: unknown; output_tokens: unknown }>(
        'SELECT model, requests, input_tokens, output_tokens FROM task_session_parent_usage ORDER BY model',
      )
    ).map((r) => ({ model: r.model, requests: Number(r.requests), input: Number(r.input_tokens), output: Number(r.output_tokens) }));

  it("a Workflow run's agents are counted and WARNed about once a run, never read, nothing deferred; the session's own transcript is read", async () => {
    writeFileSync(
      mainFile(),
      jsonl([
        line(0, { type: 'user', message: { role: 'user', content: 'go' } }),
        response(1, 'msg_main', [{ type: 'tool_use', id: 'toolu_wf', name: 'Workflow', input: { script: 'agent("x")' } }]),
        launch(2, 'toolu_agent', { description: 'Review', subagent_type: 'reviewer', prompt: 'p' }),
        result(3, 'toolu_agent', { status: 'completed', agentId: 'a0123456789abcdef', totalTokens: 10 }),
      ]),
    );
    const run = join(tree, 'proj', S, 'subagents', 'workflows', 'wf_8ca2332b-21c');
    mkdirSync(run, { recursive: true });
    for (const id of ['ab8437c79171a6c88', 'ac0ffee0123456789']) {
      writeFileSync(
        join(run, `agent-${id}.jsonl`),
        jsonl([{ ...response(4, `msg_${id}`, [], { input_tokens: 400_000, output_tokens: 9_000 }), isSidechain: true }]),
      );
      writeFileSync(join(run, `agent-${id}.meta.json`), JSON.stringify({ agentType: 'general-purpose', description: 'X.P.W0.a' }));
    }
    writeFileSync(join(run, 'journal.jsonl'), '{"type":"started","agentId":"ab8437c79171a6c88"}\n'); // the run's journal: no transcript
    for (const n of [0, 1]) {
      const { summary, warns } = await importInto(store, tree);
      expect({ n, ...summary }).toMatchObject({ n, unreadTranscripts: 2, deferred: 0, orphanTranscripts: 0, helperTranscripts: 0 });
      expect(warns.map((w) => w.msg)).toEqual([expect.stringMatching(UNREAD_WARN)]);
      expect(warns[0].fields).toEqual({ transcripts: 2, first: join(run, 'agent-ab8437c79171a6c88.jsonl') });
      expect(summary.lines).toBe(n === 0 ? 4 : 0);
    }
    expect(await store.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'toolu_agent' }]);
    const own = referenceUsage(mainFile()).get('claude-x')!;
    expect(await parentUsage()).toEqual([{ model: 'claude-x', requests: own.requests, input: own.input_tokens, output: own.output_tokens }]);
  });

  it('folders deeper than the walk goes, and links in them, are not counted; a link is left out with its WARN, as everywhere', async () => {
    writeFileSync(mainFile(), jsonl([response(1, 'msg_main')]));
    const deep = join(tree, 'proj', S, 'subagents', 'a', 'b', 'c', 'd');
    mkdirSync(join(deep, 'e'), { recursive: true });
    writeFileSync(join(deep, 'agent-a1.jsonl'), jsonl([response(2, 'msg_d')])); // four folders down: counted
    writeFileSync(join(deep, 'e', 'agent-a2.jsonl'), jsonl([response(3, 'msg_e')])); // five: past the walk
    symlinkSync(join(tree, 'proj'), join(tree, 'proj', S, 'subagents', 'a', 'loop'));
    const { summary, warns } = await importInto(store, tree);
    expect(summary).toMatchObject({ unreadTranscripts: 1, deferred: 1 });
    expect(warns.map((w) => w.msg).sort()).toEqual([
      expect.stringMatching(/an entry of the transcript folder was left out/),
      expect.stringMatching(UNREAD_WARN),
    ]);
  });

  it('a byte order mark before the first line is no part of it: the line is read, not counted malformed', async () => {
    writeFileSync(
      mainFile(),
      `\uFEFF${jsonl([response(1, 'msg_1', [], { input_tokens: 7, output_tokens: 3 }), response(2, 'msg_2', [], { input_tokens: 11, output_tokens: 5 })])}`,
    );
    const { summary, warns } = await importInto(store, tree);
    expect(summary).toMatchObject({ lines: 2, malformedLines: 0 });
    expect(warns).toEqual([]);
    expect(await parentUsage()).toEqual([{ model: 'claude-x', requests: 2, input: 18, output: 8 }]);
    // Only the file's start: a later line opening with one is malformed, as any line that is not JSON.
    appendFileSync(mainFile(), `\uFEFF${jsonl([response(3, 'msg_3')])}`);
    expect((await importInto(store, tree)).summary).toMatchObject({ lines: 1, malformedLines: 1 });
  });

  it('a project folder copied beside its original, the copy longer: the bar counts each transcript once and reaches its end', async () => {
    writeFileSync(mainFile(), jsonl([response(1, 'msg_1'), response(2, 'msg_2')]));
    cpSync(join(tree, 'proj'), join(tree, 'proj-copy'), { recursive: true });
    const same = jsonl([response(3, 'msg_3')]);
    appendFileSync(mainFile('proj-copy'), same);
    const longest = Buffer.byteLength(jsonl([response(1, 'msg_1'), response(2, 'msg_2')]) + same);
    const bars: [number, number][] = [];
    await importInto(store, tree, { onProgress: (done, total) => void bars.push([done, total]) });
    expect(bars.at(-1)).toEqual([longest, longest]);
    expect((await parentUsage())[0].requests).toBe(3);
    // Both copies the same again, and one of them grown: the bar's total is what is left of the longer.
    appendFileSync(mainFile('proj'), same);
    const grown = jsonl([response(4, 'msg_4')]);
    appendFileSync(mainFile('proj'), grown);
    bars.length = 0;
    await importInto(store, tree, { onProgress: (done, total) => void bars.push([done, total]) });
    expect(bars.at(-1)).toEqual([Buffer.byteLength(grown), Buffer.byteLength(grown)]);
    expect((await parentUsage())[0].requests).toBe(4);
  });

  it('a copy the import leaves unread (its folder lost the main transcript) moves the bar only once the copy after it is read', async () => {
    const agent = 'a0123456789abcdef';
    const project = join(tree, 'b-proj');
    mkdirSync(join(project, S, 'subagents'), { recursive: true });
    writeFileSync(
      join(project, `${S}.jsonl`),
      jsonl([
        launch(1, 'toolu_1', { description: 'Review', subagent_type: 'reviewer', prompt: 'p' }),
        result(2, 'toolu_1', { status: 'completed', agentId: agent, totalTokens: 10 }),
      ]),
    );
    writeFileSync(
      join(project, S, 'subagents', `agent-${agent}.jsonl`),
      jsonl([
        { ...response(3, 'msg_sub'), isSidechain: true },
        { ...response(4, 'msg_sub2'), isSidechain: true },
      ]),
    );
    writeFileSync(join(project, S, 'subagents', `agent-${agent}.meta.json`), JSON.stringify({ agentType: 'reviewer', toolUseId: 'toolu_1' }));
    cpSync(join(project, S), join(tree, 'a-proj', S), { recursive: true }); // sorts first, no main transcript: an orphan
    const bars: [number, number][] = [];
    const { summary } = await importInto(store, tree, { onProgress: (done, total) => void bars.push([done, total]) });
    const total = statSync(join(project, `${S}.jsonl`)).size + statSync(join(project, S, 'subagents', `agent-${agent}.jsonl`)).size;
    expect(summary.orphanTranscripts).toBe(1);
    expect(bars.map(([done]) => done)).toEqual([0, 0, total - statSync(join(project, S, 'subagents', `agent-${agent}.jsonl`)).size, total]);
    expect(new Set(bars.map(([, t]) => t))).toEqual(new Set([total]));
  });
});
