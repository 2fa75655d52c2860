// `subagent-context import claude-code` as a user runs it (in process, src/cli/main.ts): the
// summary on stdout, --json, the store created when absent (the import is a host), a second
// run that reads nothing new, and the usage errors — on both dialects.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describeBothDialects('cli: import claude-code', (dialect) => {
  let store: ProxyStore;
  beforeEach(async () => {
    store = await openProxyStore(dialect);
  });
  afterEach(async () => store.close());

  it('imports, says what it read, and a second run reads nothing new', async () => {
    const first = await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...store.args]);
    expect(first.err).toBe('');
    expect(first.code).toBe(EXIT.ok);
    expect(first.out).toMatch(
      /^imported claude-code into (sqlite|postgres) .*: 2 sessions seen, 10 transcripts with new lines\n {2}261 lines \(1\.2 MB\) read, 25 subagent row writes\n$/,
    );
    const second = await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, ...store.args, '--json']);
    expect(JSON.parse(second.out)).toMatchObject({ sessions: 2, transcripts: 0, lines: 0, bytes: 0, frames: 0 });
    expect(await store.query('SELECT count(*) AS n FROM task_session_subagents')).toEqual([{ n: dialect === 'sqlite' ? 8 : '8' }]);
  });

  it("says how many of Claude Code's own helper agents' transcripts it left unread, without a WARN, run after run", async () => {
    const tree = mkdtempSync(join(tmpdir(), 'cli-import-helpers-'));
    try {
      cpSync(RECORDED_PROJECTS, tree, { recursive: true });
      const [project] = readdirSync(tree);
      const [session] = readdirSync(join(tree, project)).filter((name) => !name.endsWith('.jsonl'));
      writeFileSync(join(tree, project, session, 'subagents', 'agent-acompact-7aad72.jsonl'), '{"type":"user","isSidechain":true}\n');
      for (const run of [0, 1]) {
        const { code, out, err } = await cli(['import', 'claude-code', '--from', tree, ...store.args]);
        expect({ code, err, run }).toEqual({ code: EXIT.ok, err: '', run });
        expect(out).toContain(
          "\n  1 transcript of Claude Code's own helper agents (compaction, prompt suggestions) not read: no tool call launched them, and their lines repeat the conversation they fork\n",
        );
        expect(out).not.toContain('left out');
      }
      expect(JSON.parse((await cli(['import', 'claude-code', '--from', tree, ...store.args, '--json'])).out)).toMatchObject({
        helperTranscripts: 1,
        deferred: 0,
      });
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it("says how many transcripts below a session's subagents folder (a Workflow run's agents) it did not read, with one WARN", async () => {
    const tree = mkdtempSync(join(tmpdir(), 'cli-import-workflow-'));
    try {
      cpSync(RECORDED_PROJECTS, tree, { recursive: true });
      const [project] = readdirSync(tree);
      const [session] = readdirSync(join(tree, project)).filter((name) => !name.endsWith('.jsonl'));
      const run = join(tree, project, session, 'subagents', 'workflows', 'wf_1');
      mkdirSync(run, { recursive: true });
      for (const id of ['a1', 'a2']) writeFileSync(join(run, `agent-${id}.jsonl`), '{"type":"user","isSidechain":true}\n');
      const { code, out, err } = await cli(['import', 'claude-code', '--from', tree, ...store.args]);
      expect(code).toBe(EXIT.ok);
      expect(out).toContain(
        "\n  2 transcripts in folders below a session's subagents folder (Claude Code's Workflow runs) not read: their usage is not in the ledger (see the WARN line)\n",
      );
      expect(err.trim().split('\n')).toEqual([expect.stringMatching(/WARN .* are not imported: their agents have no subagent rows .*\{"transcripts":2,/)]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('--task names the task of every session', async () => {
    expect((await cli(['import', 'claude-code', '--from', RECORDED_PROJECTS, '--task', 'card-42', ...store.args])).code).toBe(EXIT.ok);
    expect(await store.query('SELECT DISTINCT task_id FROM task_sessions')).toEqual([{ task_id: 'card-42' }]);
  });
});

describe('cli: import usage errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-import-'));
  afterEach(() => rmSync(join(dir, 'x.db'), { force: true }));

  it.each([
    [['import'], /name one agent to import: claude-code/],
    [['import', 'codex'], /name one agent to import: claude-code/],
    [['import', 'claude-code', '--from', join(dir, 'missing')], /no transcript folder at/],
    [['import', 'claude-code', '--from', RECORDED_PROJECTS, '--task', ''], /--task needs a value/],
  ])('%j', async (argv, message) => {
    const run = await cli([...argv, '--sqlite', join(dir, 'x.db')]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toMatch(message);
  });
});
