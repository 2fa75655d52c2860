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
import { importClaudeCode, type ImportSummary } from '../src/import/claude-code/import-claude-code.js';
import { ProgressMovedError, type ImportStore, type ImportUnit } from '../src/import/import-store.js';
import { openImportStore } from '../src/import/open-import-store.js';
import { createWallClock } from '../src/instant.js';
import { filesUnder, importInto, RECORDED_PROJECTS } from './helpers/claude-import.js';
import { openProxyStore, type ProxyStore } from './helpers/proxy-store.js';
import { describeBothDialects, type Dialect } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { clientFor, databaseName } from '../scripts/lib/postgres-database.js';

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
const heldRows = (id: string) => [
  `INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('${id}', 't', '2026-12-05 00:00:00', '2026-12-05 00:00:00')`,
  `INSERT INTO subagent_context_import_progress (source, transcript, task_session_id, byte_offset, lines, malformed_lines, updated_at) VALUES ('claude-code', '${id}', '${id}', 100, 2, 0, '2026-12-05 00:00:00')`,
];
const sqliteHolder = (id: string) => `import Database from 'better-sqlite3';
  const db = new Database(process.argv[1]);
  db.exec('BEGIN IMMEDIATE');
  for (const sql of ${JSON.stringify(heldRows(id))}) db.exec(sql);
  process.stdout.write('held\\n');
  setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${HOLD_MS});`;

/** Starts the holder; resolves once its transaction holds the rows, with a promise that it committed. */
function holdProgress(dialect: Dialect, location: string, id: string): Promise<{ committed: Promise<void> }> {
  return byDialect(dialect, {
    sqlite: () =>
      new Promise<{ committed: Promise<void> }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', sqliteHolder(id), location], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      for (const sql of heldRows(id)) await client.query(sql);
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

/** One unit of transcript `id` (its session's main one) from its start (never imported), with one request's usage. */
function unitFromStart(at: bigint, id: string): ImportUnit {
  return {
    source: 'claude-code',
    sessionId: id,
    taskId: 't',
    executionId: 'e1',
    sessionAt: at,
    jobs: [],
    subagentUsage: null,
    parentUsage: new Map([['m', { requests: 1, input_tokens: 10n, output_tokens: 5n, cache_read_input_tokens: 0n, cache_creation_input_tokens: 0n }]]),
    progress: { transcript: id, sessionId: id, byteOffset: 80, lines: 1, malformedLines: 0, turnId: null, last: null },
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
    let summaryA!: ImportSummary;
    let summaryB!: ImportSummary;
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
      summaryB = await runB;
      // B is refused the transcript it held (A moved it), writes nothing of it and says so.
      // Having seen A, it reads each later transcript's progress again before its file, so it
      // reads on from where A stopped instead of being refused every one A moved.
      expect(summaryB.overtaken).toBe(1);
      const overtaken = warnsB.filter((w) => w.msg === 'another import wrote this transcript’s lines first (two imports at once): left to it');
      expect(overtaken).toHaveLength(1);
      expect(overtaken[0].fields.path).toMatch(/\.jsonl$/);
      expect(summaryB.writeFailed).toBe(0);
      expect(summaryB.transcripts).toBeGreaterThanOrEqual(movedByA - 1);
      summaryA = runA.summary;
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
    // Each summary counts what its run committed: together, every line and byte of the tree once.
    const files = filesUnder(RECORDED_PROJECTS, /\.jsonl$/);
    const tree = {
      lines: files.reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').filter(Boolean).length, 0),
      bytes: files.reduce((n, f) => n + readFileSync(f).length, 0),
    };
    const runs = [summaryA, summaryB, runC.summary];
    expect({ lines: runs.reduce((n, r) => n + r.lines, 0), bytes: runs.reduce((n, r) => n + r.bytes, 0) }).toEqual(tree);
  });

  it("a commit that waits for another import's commit of the same transcript is refused once that one commits", async () => {
    const [flag, where] = target.args;
    const dbTarget = flag === '--sqlite' ? { dialect: 'sqlite' as const, file: where } : { dialect: 'postgres' as const, url: where };
    // PostgreSQL: also under a database whose default isolation is REPEATABLE READ, where the
    // check failed 40001 (a write error, exit 7) until the unit asked for READ COMMITTED.
    const defaults = byDialect(dialect, { sqlite: [null], postgres: ['read committed', 'repeatable read'] });
    for (const [n, isolation] of defaults.entries()) {
      const id = `s${n}`;
      if (isolation !== null) await target.exec(`ALTER DATABASE ${databaseName(where)} SET default_transaction_isolation = '${isolation}'`);
      const clock = createWallClock();
      const store = await openImportStore(dbTarget, { logger: { warn: () => {} }, clock });
      try {
        expect(await store.prepare()).toBe(true);
        const holder = await holdProgress(dialect, where, id);
        const started = performance.now();
        const outcome = await store.commit(unitFromStart(clock(), id)).then(
          () => 'committed',
          (err: unknown) => err,
        );
        // It waited for the holder (SQLite's write lock; PostgreSQL's unique index), then found
        // the progress at 100, not at 0 where its lines start, and wrote nothing.
        expect(performance.now() - started).toBeGreaterThan(HOLD_MS / 2);
        expect(outcome, `default isolation ${isolation}`).toBeInstanceOf(ProgressMovedError);
        await holder.committed;
      } finally {
        await store.close();
      }
      expect(await target.query('SELECT transcript, byte_offset FROM subagent_context_import_progress WHERE transcript = $1', [id])).toEqual([
        { transcript: id, byte_offset: byDialect(dialect, { sqlite: 100, postgres: '100' }) },
      ]);
    }
    expect(await target.query('SELECT model FROM task_session_parent_usage')).toEqual([]);
  });
});
