// The three processes the import benchmark times on one tree, each a child of its own so its
// peak RSS (/usr/bin/time's %M) is its own: the floor (claude-import-floor.ts), the built CLI's
// `import claude-code --sqlite` into a fresh store (what a user runs), and ccusage 19
// (`session --offline --json`, under Bun: it needs Node 22 or Bun) on the same folder.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDatabase } from '../lib/postgres-database.js';
import type { ClaudeCodeTree } from './lib/claude-code-tree.js';
import type { FloorMeasurement } from './claude-import-floor.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');
// Bun's binary from its platform package (as test/import-ccusage.test.ts finds it).
const BUN = join(ROOT, 'node_modules', '@oven', `bun-${process.platform}-${process.arch}`, 'bin', 'bun');
const CCUSAGE = join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js');

export type Path = 'floor' | 'import' | 'ccusage';

export interface Run {
  ms: number;
  maxRssKb: number;
  lines: number;
  /** Tokens summed over every session (the four figures), to check both read the same usage. */
  tokens?: number;
  sessions?: number;
}

export const ccusageAvailable = () => existsSync(BUN) && existsSync(CCUSAGE);

/** Runs a command under /usr/bin/time -f %M (peak RSS, kB), timing it from outside; its stdout. */
function timed(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ ms: number; maxRssKb: number; stdout: string }> {
  const rssFile = join(tmpdir(), `bench-rss-${process.pid}-${Date.now()}`);
  return new Promise((done, fail) => {
    const start = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', rssFile, command, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd ?? ROOT,
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err = (err + String(c)).slice(-4000)));
    child.on('error', fail);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const rss = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) : Number.NaN;
      rmSync(rssFile, { force: true });
      if (code !== 0) return fail(new Error(`${command} ${args.join(' ')} exited with ${code}: ${err}`));
      done({ ms, maxRssKb: rss, stdout: Buffer.concat(out).toString('utf8') });
    });
  });
}

const lastJsonLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as unknown;

async function floor(tree: ClaudeCodeTree): Promise<Run> {
  const r = await timed(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'claude-import-floor.ts'), tree.projectsDir]);
  const m = lastJsonLine(r.stdout) as FloorMeasurement;
  // Timed inside the child: the floor pays no process start-up (tsx's alone is ~0.5 s).
  return { ms: m.ms, maxRssKb: r.maxRssKb, lines: m.lines };
}

/** The ledger's tokens (parent and subagents, the four figures) and the sessions of an imported store. */
function ledger(file: string): { tokens: number; sessions: number } {
  const db = new Database(file, { readonly: true });
  try {
    const sum = `coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_input_tokens, 0) + coalesce(cache_creation_input_tokens, 0)), 0)`;
    const row = db
      .prepare(
        `SELECT (SELECT ${sum} FROM task_session_parent_usage) + (SELECT ${sum} FROM task_session_subagent_usage) AS tokens,
                (SELECT count(*) FROM task_sessions) AS sessions`,
      )
      .get() as { tokens: number; sessions: number };
    return row;
  } finally {
    db.close();
  }
}

async function importSqlite(tree: ClaudeCodeTree, dbFile: string, again = false): Promise<Run> {
  if (!again) for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) rmSync(f, { force: true });
  const r = await timed(process.execPath, [CLI, 'import', 'claude-code', '--from', tree.projectsDir, '--sqlite', dbFile, '--json']);
  const summary = lastJsonLine(r.stdout) as { lines: number; deferred: number; malformedLines: number; sessions: number };
  if (summary.deferred || summary.sessions !== tree.sessions || (again && summary.lines))
    throw new Error(`import left ${summary.deferred} transcripts, saw ${summary.sessions} of ${tree.sessions} sessions: ${r.stdout}`);
  return { ms: r.ms, maxRssKb: r.maxRssKb, lines: summary.lines, ...ledger(dbFile) };
}

/** A second import into the store the last one wrote: nothing new to read (the incremental path: every transcript's progress row read, one project folder at a time). */
export const reimport = (tree: ClaudeCodeTree, dbFile: string) => importSqlite(tree, dbFile, true);

const TOKENS = (table: string) =>
  `SELECT coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_input_tokens, 0) + coalesce(cache_creation_input_tokens, 0)), 0)::text AS n FROM ${table}`;

/** The import into a fresh PostgreSQL database on the benchmark's cluster (fsync on), dropped after. */
export async function importPostgres(tree: ClaudeCodeTree, serverUrl: string): Promise<Run> {
  const db = await createDatabase(serverUrl, 'bench_claude_code_import', { replaceExisting: true });
  try {
    const r = await timed(process.execPath, [CLI, 'import', 'claude-code', '--from', tree.projectsDir, '--postgres', db.url, '--json']);
    const summary = lastJsonLine(r.stdout) as { lines: number; deferred: number; sessions: number };
    if (summary.deferred || summary.sessions !== tree.sessions) throw new Error(`import (PostgreSQL) left ${summary.deferred} transcripts: ${r.stdout}`);
    const pool = db.pool({ max: 1 });
    let tokens = 0;
    for (const table of ['task_session_parent_usage', 'task_session_subagent_usage'])
      tokens += Number((await pool.query<{ n: string }>(TOKENS(table))).rows[0].n);
    const sessions = Number((await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM task_sessions')).rows[0].n);
    return { ms: r.ms, maxRssKb: r.maxRssKb, lines: summary.lines, tokens, sessions };
  } finally {
    await db.drop();
  }
}

interface CcusageSession {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}

async function ccusage(tree: ClaudeCodeTree): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'bench-ccusage-home-'));
  try {
    const r = await timed(BUN, [CCUSAGE, 'session', '--offline', '--json'], {
      env: { PATH: process.env.PATH, CLAUDE_CONFIG_DIR: tree.configDir, HOME: home, NO_COLOR: '1' },
      cwd: home,
    });
    const sessions = (JSON.parse(r.stdout) as { session: CcusageSession[] }).session;
    const tokens = sessions.reduce((n, s) => n + s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheCreationTokens, 0);
    return { ms: r.ms, maxRssKb: r.maxRssKb, lines: Number.NaN, tokens, sessions: sessions.length };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function measurePath(path: Path, tree: ClaudeCodeTree, dbFile: string): Promise<Run> {
  return path === 'floor' ? floor(tree) : path === 'import' ? importSqlite(tree, dbFile) : ccusage(tree);
}

/** Reads every transcript once, untimed, so no path pays for a cold page cache the others find warm. */
export async function warmUp(tree: ClaudeCodeTree): Promise<void> {
  await floor(tree);
}
