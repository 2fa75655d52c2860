// A second import over a tree with nothing new reads the progress rows one project folder at a
// time, by the keys of that project's transcripts (in batches of PROGRESS_BATCH keys), never
// every row of the source at once: its memory follows the largest project, not the tree. Read
// per project, a session also found in an earlier folder of the tree resumes where that one
// stopped. The store is the real one; only its readProgress calls are recorded on the way through.
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importClaudeCode, type ImportSummary } from '../src/import/claude-code/import-claude-code.js';
import { PROGRESS_BATCH } from '../src/import/claude-code/import-work.js';
import { openImportStore } from '../src/import/open-import-store.js';
import { createWallClock } from '../src/instant.js';
import { listProjects } from '../src/import/claude-code/discover.js';
import { filesUnder, RECORDED_PROJECTS, referenceUsage } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects } from './helpers/test-db.js';

interface ProgressRead {
  keys: string[];
  found: number;
}

interface Run {
  summary: ImportSummary;
  reads: ProgressRead[];
  bars: [number, number][];
  warns: string[];
}

async function importRecording(target: ProxyStore, from: string): Promise<Run> {
  const warns: string[] = [];
  const logger = { warn: (_fields: object, msg: string) => void warns.push(msg) };
  const [flag, where] = target.args;
  const clock = createWallClock();
  const store = await openImportStore(flag === '--sqlite' ? { dialect: 'sqlite', file: where } : { dialect: 'postgres', url: where }, { logger, clock });
  const reads: ProgressRead[] = [];
  const readProgress = store.readProgress.bind(store);
  store.readProgress = async (source, transcripts) => {
    const found = await readProgress(source, transcripts);
    reads.push({ keys: [...transcripts], found: found.size });
    return found;
  };
  const bars: [number, number][] = [];
  try {
    expect(await store.prepare()).toBe(true);
    const summary = await importClaudeCode({ from, store, logger, clock, onProgress: (done, total) => void bars.push([done, total]) });
    return { summary, reads, bars, warns };
  } finally {
    await store.close();
  }
}

/** A project folder of `count` one-line main transcripts: `s-<project>-<i>`. */
function syntheticProject(tree: string, project: string, count: number): string[] {
  mkdirSync(join(tree, project));
  const keys = Array.from({ length: count }, (_, i) => `s-${project}-${String(i).padStart(5, '0')}`);
  for (const key of keys) writeFileSync(join(tree, project, `${key}.jsonl`), `{"type":"user","sessionId":"${key}","cwd":"/${project}"}\n`);
  return keys;
}

/** The transcript keys of the recorded project: '<sessionId>' and '<sessionId>/agent-<agentId>'. */
function recordedKeys(): string[] {
  return filesUnder(RECORDED_PROJECTS, /\.jsonl$/).map((f) => {
    const sub = /([^/]+)\/subagents\/agent-([^/]+)\.jsonl$/.exec(f);
    return sub ? `${sub[1]}/agent-${sub[2]}` : basename(f, '.jsonl');
  });
}

describeBothDialects('import claude-code: a second import reads progress per project', (dialect) => {
  let target: ProxyStore;
  let tree: string;
  beforeEach(async () => {
    target = await openProxyStore(dialect);
    tree = mkdtempSync(join(tmpdir(), 'claude-rerun-'));
  });
  afterEach(async () => {
    await target.close();
    rmSync(tree, { recursive: true, force: true });
  });

  it('two projects: each read asks for its own project’s keys only, and the second import finds every row and nothing new', async () => {
    cpSync(RECORDED_PROJECTS, tree, { recursive: true });
    const recorded = recordedKeys().sort();
    const synthetic = syntheticProject(tree, 'zz-second-project', 3);
    const first = await importRecording(target, tree);
    expect(first.warns).toEqual([]);
    expect(first.summary.transcripts).toBe(recorded.length + synthetic.length);
    // First run: nothing to find. Reads: the bar's total (onProgress), then the import, each per project.
    expect(first.reads.map((r) => r.found)).toEqual([0, 0, 0, 0]);
    const second = await importRecording(target, tree);
    expect(second.warns).toEqual([]);
    expect(second.summary).toMatchObject({ transcripts: 0, bytes: 0, lines: 0, frames: 0, deferred: 0 });
    expect(second.bars.at(-1)).toEqual([0, 0]);
    const projects = second.reads.map((r) => [...r.keys].sort());
    expect(projects).toEqual([recorded, synthetic, recorded, synthetic]);
    expect(second.reads.map((r) => r.found)).toEqual([recorded.length, synthetic.length, recorded.length, synthetic.length]);
    // The store holds one progress row per transcript, and nothing was written twice.
    const [{ n }] = await target.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM subagent_context_import_progress');
    expect(Number(n)).toBe(recorded.length + synthetic.length);
  });

  it('a session found in two project folders of one tree (a copied folder) is read once: the second folder resumes where the first stopped', async () => {
    const [project] = listProjects(RECORDED_PROJECTS);
    cpSync(join(RECORDED_PROJECTS, project), join(tree, 'a-copy'), { recursive: true });
    cpSync(join(RECORDED_PROJECTS, project), join(tree, 'b-copy'), { recursive: true });
    const recorded = recordedKeys();
    const run = await importRecording(target, tree);
    expect(run.warns).toEqual([]);
    expect(run.summary.transcripts).toBe(recorded.length);
    // Import pass (after the bar's two): the second folder's read finds every row the first wrote.
    expect(run.reads.map((r) => r.found)).toEqual([0, 0, 0, recorded.length]);
    const mains = filesUnder(RECORDED_PROJECTS, /^[0-9a-f-]{36}\.jsonl$/);
    const expected = mains.flatMap((f) => [...referenceUsage(f).values()]).reduce((sum, u) => sum + u.requests, 0);
    const [{ requests }] = await target.query<{ requests: unknown }>('SELECT SUM(requests) AS requests FROM task_session_parent_usage');
    expect(Number(requests)).toBe(expected);
  });

  it(`a project with more transcripts than one batch (${PROGRESS_BATCH} keys) is read in batches and found whole`, async () => {
    const keys = syntheticProject(tree, 'big-project', PROGRESS_BATCH + 7);
    const first = await importRecording(target, tree);
    expect(first.summary.transcripts).toBe(keys.length);
    const second = await importRecording(target, tree);
    expect(second.summary).toMatchObject({ transcripts: 0, bytes: 0, lines: 0, deferred: 0 });
    // Two batches for the bar's total, two for the import: every key asked once per pass, every row found.
    expect(second.reads.map((r) => r.keys.length)).toEqual([PROGRESS_BATCH, 7, PROGRESS_BATCH, 7]);
    expect(second.reads.map((r) => r.found)).toEqual([PROGRESS_BATCH, 7, PROGRESS_BATCH, 7]);
    expect(second.reads.slice(0, 2).flatMap((r) => r.keys)).toEqual(keys);
    // A transcript that grew is the only one read again.
    appendFileSync(join(tree, 'big-project', `${keys[PROGRESS_BATCH + 3]}.jsonl`), '{"type":"user"}\n');
    const third = await importRecording(target, tree);
    expect(third.summary).toMatchObject({ transcripts: 1, lines: 1 });
  }, 120_000);
});
