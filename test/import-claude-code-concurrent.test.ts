// Two imports into one store at the same time (review of 2026-12-05: each run read a
// transcript's progress before its lines and committed without checking it, so both added the
// same lines' usage; 200,000 requests were counted for 100,000). The commit now claims the
// progress first and only from where its lines start: a run whose transcript another import moved
// meanwhile is refused that transcript, WARNs and counts it as `overtaken`, and writes nothing of
// it. The race is made exact: run B reads the whole tree, then waits at its first commit while run
// A imports the first half of every transcript (the same keys, from a copy of the tree); then B
// commits. A third run reads on from where A stopped, and the ledger and rows then equal one
// import of the whole tree. Both stores are the real ones; only B's commit is held back. And a
// commit that meets another run's commit of the same transcript in flight waits for it, then is
// refused (a child process holds that transaction open).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importClaudeCode } from '../src/import/claude-code/import-claude-code.js';
import { ProgressMovedError, type ImportStore, type ImportUnit } from '../src/import/import-store.js';
import { openImportStore } from '../src/import/open-import-store.js';
import { createWallClock } from '../src/instant.js';
import { filesUnder, importInto, RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { clientFor } from '../scripts/lib/postgres-database.js';

const LEDGER = [
  'SELECT task_session_id, tool_call_id, model, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens FROM task_session_subagent_usage ORDER BY task_session_id, tool_call_id, model',
  'SELECT task_session_id, model, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens FROM task_session_parent_usage ORDER BY task_session_id, model',
  'SELECT transcript, byte_offset, lines FROM subagent_context_import_progress ORDER BY transcript',
  'SELECT task_session_id, tool_call_id, tool_status, subagent_type, agent_id, total_tokens FROM task_session_subagents ORDER BY task_session_id, tool_call_id',
];

async function snapshot(store: ProxyStore): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for (const sql of LEDGER) out.push((await store.query(sql)).map((r) => JSON.parse(JSON.stringify(r)) as unknown));
  return out;
}

/** A copy of the recorded tree with every transcript cut to the first half of its lines. */
function halfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-half-'));
  cpSync(RECORDED_PROJECTS, dir, { recursive: true });
  for (const file of filesUnder(dir, /\.jsonl$/)) {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    writeFileSync(file, lines.slice(0, Math.ceil(lines.length / 2)).join('\n') + '\n');
  }
  return dir;
}

/**
 * Another import's commit of transcript 's1', in flight: one transaction writes the session and
 * the progress (offset 100), and commits HOLD_MS after it holds them. On SQLite a child process
 * holds it (the store's commit waits for the write lock synchronously, blocking this process);
 * on PostgreSQL a client of this process.
 */
const HOLD_MS = 600;
const HELD_ROWS = [
  "INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('s1', 't', '2026-12-05 00:00:00', '2026-12-05 00:00:00')",
  "INSERT INTO subagent_context_import_progress (source, transcript, task_session_id, byte_offset, lines, malformed_lines, updated_at) VALUES ('claude-code', 's1', 's1', 100, 2, 0, '2026-12-05 00:00:00')",
];
const SQLITE_HOLDER = `import Database from 'better-sqlite3';
  const db = new Database(process.argv[1]);
  db.exec('BEGIN IMMEDIATE');
  for (const sql of ${JSON.stringify(HELD_ROWS)}) db.exec(sql);
  process.stdout.write('held\\n');
  setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${HOLD_MS});`;

/** Starts the holder; resolves once its transaction holds the rows, with a promise that it committed. */
function holdProgress(dialect: Dialect, location: string): Promise<{ committed: Promise<void> }> {
  return byDialect(dialect, {
    sqlite: () =>
      new Promise<{ committed: Promise<void> }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', SQLITE_HOLDER, location], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
        const committed = new Promise<void>((done, fail) =>
          child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`holder exited ${code}: ${stderr}`)))),
        );
        child.stdout.on('data', (c: Buffer) => {
          if (c.toString().includes('held')) resolve({ committed });
        });
        child.on('exit', (code) => reject(new Error(`holder exited ${code} before holding: ${stderr}`)));
      }),
    postgres: async () => {
      const client = clientFor(location);
      await client.connect();
      await client.query('BEGIN');
      for (const sql of HELD_ROWS) await client.query(sql);
      const committed = new Promise<void>((done, fail) =>
        setTimeout(
          () =>
            void client
              .query('COMMIT')
              .then(() => client.end())
              .then(done, fail),
          HOLD_MS,
        ),
      );
      return { committed };
    },
  })();
}

/** One unit of transcript 's1' from its start (never imported), with one request's usage. */
function unitFromStart(at: bigint): ImportUnit {
  return {
    source: 'claude-code',
    sessionId: 's1',
    taskId: 't',
    executionId: 'e1',
    sessionAt: at,
    jobs: [],
    subagentUsage: null,
    parentUsage: new Map([['m', { requests: 1, input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }]]),
    progress: { transcript: 's1', sessionId: 's1', byteOffset: 80, lines: 1, malformedLines: 0, turnId: null, last: null },
    fromOffset: 0,
    at,
  };
}

describeBothDialects('import claude-code: two imports at once', (dialect) => {
  let target: ProxyStore;
  let reference: ProxyStore;
  let half: string;
  beforeEach(async () => {
    target = await openProxyStore(dialect);
    reference = await openProxyStore(dialect);
    half = halfTree();
  });
  afterEach(async () => {
    await target.close();
    await reference.close();
    rmSync(half, { recursive: true, force: true });
  });

  it('a run whose transcripts another import moved meanwhile leaves their lines to it: nothing counted twice, nothing lost', async () => {
    const [flag, where] = target.args;
    const dbTarget = flag === '--sqlite' ? { dialect: 'sqlite' as const, file: where } : { dialect: 'postgres' as const, url: where };
    const clock = createWallClock();
    const warnsB: { msg: string; fields: Record<string, unknown> }[] = [];
    const loggerB = { warn: (fields: object, msg: string) => void warnsB.push({ msg, fields: fields as Record<string, unknown> }) };
    const storeB: ImportStore = await openImportStore(dbTarget, { logger: loggerB, clock });
    try {
      expect(await storeB.prepare()).toBe(true);
      // B reads every progress row (none yet) and the first transcript's lines, then waits.
      let reachedCommit!: () => void;
      const waiting = new Promise<void>((resolve) => (reachedCommit = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const commit = storeB.commit.bind(storeB);
      storeB.commit = async (unit) => {
        reachedCommit();
        await released;
        return commit(unit);
      };
      const runB = importClaudeCode({ from: RECORDED_PROJECTS, store: storeB, logger: loggerB, clock });
      await waiting;

      // A, meanwhile: the first half of every transcript, under the same keys.
      const runA = await importInto(target, half);
      expect(runA.summary.transcripts, JSON.stringify(runA)).toBeGreaterThan(0);
      const movedByA = (await target.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM subagent_context_import_progress')).map((r) => Number(r.n))[0];
      expect(movedByA).toBeGreaterThanOrEqual(2); // at least both sessions' main transcripts

      release();
      const summaryB = await runB;
      // B is refused every transcript A moved, writes nothing of them, and says so once each.
      expect(summaryB.overtaken).toBe(movedByA);
      const overtaken = warnsB.filter((w) => w.msg === 'another import wrote this transcript’s lines first (two imports at once): left to it');
      expect(overtaken).toHaveLength(movedByA);
      for (const w of overtaken) expect(w.fields.path).toMatch(/\.jsonl$/);
      expect(summaryB.writeFailed).toBe(0);
    } finally {
      await storeB.close();
    }

    // The next run reads on from where A stopped: the store then holds what one import of the
    // whole tree writes, every token counted once.
    const runC = await importInto(target, RECORDED_PROJECTS);
    expect(runC.summary.overtaken).toBe(0);
    expect(runC.summary.transcripts).toBeGreaterThan(0);
    await importInto(reference, RECORDED_PROJECTS);
    const expected = await snapshot(reference);
    expect(expected[0].length).toBeGreaterThan(0);
    expect(expected[1].length).toBeGreaterThan(0);
    expect(await snapshot(target)).toEqual(expected);
  });

  it("a commit that waits for another import's commit of the same transcript is refused once that one commits", async () => {
    const [flag, where] = target.args;
    const dbTarget = flag === '--sqlite' ? { dialect: 'sqlite' as const, file: where } : { dialect: 'postgres' as const, url: where };
    const clock = createWallClock();
    const store = await openImportStore(dbTarget, { logger: { warn: () => {} }, clock });
    try {
      expect(await store.prepare()).toBe(true);
      const holder = await holdProgress(dialect, where);
      const started = performance.now();
      const outcome = await store.commit(unitFromStart(clock())).then(
        () => 'committed',
        (err: unknown) => err,
      );
      // It waited for the holder (SQLite's write lock; PostgreSQL's unique index), then found
      // the progress at 100, not at 0 where its lines start, and wrote nothing.
      expect(performance.now() - started).toBeGreaterThan(HOLD_MS / 2);
      expect(outcome).toBeInstanceOf(ProgressMovedError);
      await holder.committed;
    } finally {
      await store.close();
    }
    expect(await target.query('SELECT transcript, byte_offset FROM subagent_context_import_progress')).toEqual([
      { transcript: 's1', byte_offset: byDialect(dialect, { sqlite: 100, postgres: '100' }) },
    ]);
    expect(await target.query('SELECT model FROM task_session_parent_usage')).toEqual([]);
  });
});
