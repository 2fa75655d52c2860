// What `import claude-code` does with a transcript folder it cannot fully read: an entry that
// cannot be listed or stat'ed (a dangling link, a folder made unreadable, a file deleted while the
// import runs) and every symbolic link are left out, each with a WARN and counted in `deferred`;
// the rest of the tree is imported. A folder of mode 000 takes the same path as a deleted one
// (the listing fails): the deleted ones are tested everywhere, as root too, whom no mode denies.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SYMLINK_SKIPPED } from '../src/import/claude-code/discover.js';
import { importClaudeCode, type ImportSummary } from '../src/import/claude-code/import-claude-code.js';
import { openImportStore } from '../src/import/open-import-store.js';
import { createWallClock } from '../src/instant.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const S3 = '33333333-3333-4333-8333-333333333333';
const S4 = '44444444-4444-4444-8444-444444444444';

interface Run {
  summary: ImportSummary;
  warns: { msg: string; fields: Record<string, unknown> }[];
}

/** The import as the CLI runs it (with a progress bar); `meanwhile` runs once, after the first transcript is read (the tree is listed by then). */
async function importTree(target: ProxyStore, from: string, meanwhile: () => void = () => {}): Promise<Run> {
  const warns: Run['warns'] = [];
  const logger = { warn: (fields: object, msg: string) => void warns.push({ msg, fields: fields as Record<string, unknown> }) };
  const [flag, where] = target.args;
  const clock = createWallClock();
  const store = await openImportStore(flag === '--sqlite' ? { dialect: 'sqlite', file: where } : { dialect: 'postgres', url: where }, { logger, clock });
  let calls = 0;
  const onProgress = () => void (++calls === 2 && meanwhile()); // the first call is the bar's total
  try {
    expect(await store.prepare()).toBe(true);
    return { summary: await importClaudeCode({ from, store, logger, clock, onProgress }), warns };
  } finally {
    await store.close();
  }
}

/** A main transcript of one prompt and one response (output_tokens = tokens), then `more` lines. */
function session(path: string, sessionId: string, tokens: number, more: object[] = []): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const at = '2026-01-01T00:00:00.000Z';
  const lines = [
    { type: 'user', sessionId, cwd: '/work', promptId: 'p1', timestamp: at, message: { role: 'user', content: 'go' } },
    {
      type: 'assistant',
      sessionId,
      cwd: '/work',
      promptId: 'p1',
      timestamp: at,
      message: { id: `m-${sessionId}`, model: 'claude-x', usage: { output_tokens: tokens } },
    },
  ];
  writeFileSync(path, [...lines, ...more].map((l) => JSON.stringify(l) + '\n').join(''));
}

const skipped = (path: string, reason: unknown) => ({ msg: 'an entry of the transcript folder was left out of this import', fields: { path, reason } });

describeBothDialects('import claude-code: entries it cannot read, and symbolic links', (dialect) => {
  let target: ProxyStore;
  let tree: string;
  let outside: string;
  beforeEach(async () => {
    target = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-tree-'));
    outside = mkdtempSync(join(tmpdir(), 'claude-outside-'));
  });
  afterEach(async () => {
    await target.close();
    rmSync(tree, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const sessions = async () => (await target.query<{ id: string }>('SELECT id FROM task_sessions ORDER BY id')).map((r) => r.id);
  const parentOutput = async () =>
    (await target.query<{ id: string; o: unknown }>('SELECT task_session_id AS id, output_tokens AS o FROM task_session_parent_usage ORDER BY 1')).map((r) => [
      r.id,
      Number(r.o),
    ]);

  it('a transcript deleted after its folder was listed is WARNed and counted; the next one and the next project are imported', async () => {
    session(join(tree, 'a-proj', `${S1}.jsonl`), S1, 2);
    const gone = join(tree, 'a-proj', `${S2}.jsonl`);
    session(gone, S2, 9);
    session(join(tree, 'a-proj', `${S3}.jsonl`), S3, 4);
    session(join(tree, 'b-proj', `${S4}.jsonl`), S4, 5);
    const run = await importTree(target, tree, () => rmSync(gone));
    expect(run.warns).toEqual([skipped(gone, expect.stringContaining('ENOENT'))]);
    expect(run.summary).toMatchObject({ sessions: 4, transcripts: 3, deferred: 1 });
    expect(await parentOutput()).toEqual([
      [S1, 2],
      [S3, 4],
      [S4, 5],
    ]);
  });

  it('a project folder that cannot be listed (gone, or unreadable) is WARNed and counted; the next project is imported', async () => {
    session(join(tree, 'a-proj', `${S1}.jsonl`), S1, 2);
    session(join(tree, 'b-proj', `${S2}.jsonl`), S2, 9);
    session(join(tree, 'c-proj', `${S3}.jsonl`), S3, 4);
    const run = await importTree(target, tree, () => rmSync(join(tree, 'b-proj'), { recursive: true }));
    expect(run.warns).toEqual([skipped(join(tree, 'b-proj'), expect.stringContaining('ENOENT'))]);
    expect(run.summary).toMatchObject({ sessions: 2, transcripts: 2, deferred: 1 });
    expect(await sessions()).toEqual([S1, S3]);
  });

  it('a dangling link among the subagent transcripts is WARNed and counted; its session and the next project are imported', async () => {
    session(join(tree, 'a-proj', `${S1}.jsonl`), S1, 2);
    const link = join(tree, 'a-proj', S1, 'subagents', 'agent-x.jsonl');
    mkdirSync(join(link, '..'), { recursive: true });
    symlinkSync(join(outside, 'nothing-here.jsonl'), link);
    session(join(tree, 'b-proj', `${S2}.jsonl`), S2, 9);
    const run = await importTree(target, tree);
    expect(run.warns).toEqual([skipped(link, SYMLINK_SKIPPED)]);
    expect(run.summary).toMatchObject({ sessions: 2, transcripts: 2, deferred: 1 });
    expect(await parentOutput()).toEqual([
      [S1, 2],
      [S2, 9],
    ]);
  });

  it('symbolic links are never followed: a linked session file, project folder and subagent transcript are each WARNed and counted', async () => {
    // S1 launched toolu_A: a followed link would be read as that subagent's own run.
    const at = '2026-01-01T00:00:01.000Z';
    const launch = {
      type: 'assistant',
      sessionId: S1,
      timestamp: at,
      message: { id: 'm-l', content: [{ type: 'tool_use', id: 'toolu_A', name: 'Agent', input: {} }] },
    };
    const result = {
      type: 'user',
      sessionId: S1,
      timestamp: at,
      toolUseResult: { agentId: 'aaa', status: 'completed' },
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_A' }] },
    };
    session(join(tree, 'proj', `${S1}.jsonl`), S1, 2, [launch, result]);
    session(join(outside, 'session.jsonl'), S2, 9);
    session(join(outside, 'project', `${S3}.jsonl`), S3, 4);
    writeFileSync(
      join(outside, 'agent.jsonl'),
      JSON.stringify({ type: 'assistant', message: { id: 'm-out', model: 'claude-x', usage: { output_tokens: 70 } } }) + '\n',
    );
    const links = [join(tree, 'linked-proj'), join(tree, 'proj', S1, 'subagents', 'agent-aaa.jsonl'), join(tree, 'proj', `${S2}.jsonl`)];
    mkdirSync(join(tree, 'proj', S1, 'subagents'), { recursive: true });
    symlinkSync(join(outside, 'project'), links[0]);
    symlinkSync(join(outside, 'agent.jsonl'), links[1]);
    symlinkSync(join(outside, 'session.jsonl'), links[2]);
    writeFileSync(join(tree, 'proj', S1, 'subagents', 'agent-aaa.meta.json'), JSON.stringify({ toolUseId: 'toolu_A', spawnDepth: 1 }));
    const run = await importTree(target, tree);
    expect(run.warns).toEqual(links.map((l) => skipped(l, SYMLINK_SKIPPED)));
    expect(run.summary).toMatchObject({ sessions: 1, transcripts: 1, deferred: 3 });
    expect(await sessions()).toEqual([S1]);
    expect(await target.query('SELECT tool_call_id FROM task_session_subagent_usage')).toEqual([]);
  });
});
