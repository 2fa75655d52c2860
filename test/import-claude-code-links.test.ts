// The links between a session's transcripts, when they are unusable or gone (review of the
// importer, 2026-12-07): a task notification or a sidecar naming a tool-use id no row can have (a
// NUL: PostgreSQL refused the lookup, failing the main transcript on every run, or, from a sidecar,
// the whole import); and a subagent transcript whose session's own transcript is gone, which
// WARNed and counted deferred on every run though its launch can never be read. Both dialects.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importInto } from './helpers/claude-import.js';
import { claudeLines, jsonl } from './helpers/claude-lines.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

const S = '55555555-5555-4555-8555-555555555555';
const T = '66666666-6666-4666-8666-666666666666';
const lines = claudeLines(S);
const other = claudeLines(T);
const AGENT = 'a0123456789abcdef';

describeBothDialects('import claude-code: links that are unusable or gone', (dialect) => {
  let store: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-links-'));
    mkdirSync(join(tree, 'proj', S, 'subagents'), { recursive: true });
  });
  afterEach(async () => {
    await store.close();
    rmSync(tree, { recursive: true, force: true });
  });
  const sub = (name: string) => join(tree, 'proj', S, 'subagents', name);
  const parentRequests = async () => (await store.query<{ n: unknown }>('SELECT requests AS n FROM task_session_parent_usage')).map((r) => Number(r.n));

  it('a task notification naming an id with a NUL is nobody’s: the transcript is imported, no WARN, run after run', async () => {
    writeFileSync(join(tree, 'proj', `${S}.jsonl`), jsonl([lines.response(1, 'msg_1'), lines.notice(2, 'toolu_\u0000x', '<status>completed</status>')]));
    for (const run of [await importInto(store, tree), await importInto(store, tree)]) {
      expect(run.warns).toEqual([]);
      expect(run.summary).toMatchObject({ deferred: 0, writeFailed: 0 });
    }
    expect(await parentRequests()).toEqual([1]);
    expect(await store.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([]);
  });

  it('a sidecar naming an id with a NUL is read as no sidecar’s link: the run goes on to every other project', async () => {
    writeFileSync(join(tree, 'proj', `${S}.jsonl`), jsonl([lines.response(1, 'msg_1')]));
    writeFileSync(sub(`agent-${AGENT}.jsonl`), jsonl([lines.response(2, 'msg_s')]));
    writeFileSync(sub(`agent-${AGENT}.meta.json`), JSON.stringify({ toolUseId: 'toolu_\u0000x', agentType: 'x' }));
    mkdirSync(join(tree, 'zproj'));
    writeFileSync(join(tree, 'zproj', `${T}.jsonl`), jsonl([other.response(1, 'msg_2')]));
    const run = await importInto(store, tree);
    expect(run.summary).toMatchObject({ transcripts: 2, deferred: 1, writeFailed: 0 });
    expect(run.warns.map((w) => w.msg)).toEqual([
      'subagent transcript without its sidecar and with no launch naming its agent id yet: left for the next import',
    ]);
    expect((await store.query<{ id: string }>('SELECT id FROM task_sessions ORDER BY id')).map((s) => s.id)).toEqual([S, T]);
  });

  it('a database error while looking up what a transcript needs costs that transcript, not the run', async () => {
    writeFileSync(join(tree, 'proj', `${S}.jsonl`), jsonl([lines.launch(1, 'toolu_1', { description: 'd' })]));
    writeFileSync(sub(`agent-${AGENT}.jsonl`), jsonl([lines.response(2, 'msg_s')]));
    writeFileSync(sub(`agent-${AGENT}.meta.json`), JSON.stringify({ toolUseId: 'toolu_1', agentType: 'x' }));
    mkdirSync(join(tree, 'zproj'));
    writeFileSync(join(tree, 'zproj', `${T}.jsonl`), jsonl([other.response(1, 'msg_2')]));
    const failing = await importInto(store, tree, {
      wrap: (real) => ({ ...real, hasSubagentRow: () => Promise.reject(new Error('connection reset')) }),
    });
    expect(failing.summary).toMatchObject({ transcripts: 2, writeFailed: 1, deferred: 0 });
    expect(failing.warns).toEqual([
      {
        msg: 'the store could not be read for a transcript: left for the next import',
        fields: { path: sub(`agent-${AGENT}.jsonl`), error: 'connection reset' },
      },
    ]);
    const next = await importInto(store, tree);
    expect(next.summary).toMatchObject({ transcripts: 1, writeFailed: 0 });
    expect((await store.query<{ n: unknown }>('SELECT requests AS n FROM task_session_subagent_usage')).map((r) => Number(r.n))).toEqual([1]);
  });

  it("a subagent transcript whose session's own transcript is gone is counted, without a WARN, run after run", async () => {
    writeFileSync(sub(`agent-${AGENT}.jsonl`), jsonl([lines.response(2, 'msg_s')]));
    writeFileSync(sub(`agent-${AGENT}.meta.json`), JSON.stringify({ toolUseId: 'toolu_1', agentType: 'x' }));
    for (let n = 0; n < 2; n++) {
      const bar: [number, number][] = [];
      const run = await importInto(store, tree, { onProgress: (done, total) => bar.push([done, total]) });
      expect(run.warns).toEqual([]);
      expect(run.summary).toMatchObject({ sessions: 1, orphanTranscripts: 1, deferred: 0, transcripts: 0 });
      // The progress bar counts the transcript's bytes, and reaches them though it is not read.
      const [done, total] = bar[bar.length - 1];
      expect(total).toBeGreaterThan(0);
      expect(done).toBe(total);
    }
  });
});
