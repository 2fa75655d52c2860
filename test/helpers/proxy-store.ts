// A store the proxy creates from nothing: a SQLite path that does not exist yet (in a temp
// folder), or an empty PostgreSQL database on the run's server — no host tables, no package
// tables, so a test sees the proxy create everything. `hostAndPackage: true` instead starts
// from a host's existing store (for fault triggers that need the tables beforehand): on
// PostgreSQL a copy of the run's `package` starting state (test/helpers/template-databases.ts);
// on SQLite the scripts applied to a new file, which stays in the rollback-journal mode the
// proxy finds a host's file in (the template file is in WAL mode, as openTestDb's are).
// Also: runs the proxy (the built binary) in front of the fake agent.
import Database from 'better-sqlite3';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { inject } from 'vitest';
import { createDatabase } from '../../scripts/lib/postgres-database.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore } from '../../src/index.js';
import { AcpClient, FAKE_AGENT } from './acp-client.js';
import { CLI } from './cli.js';
import type { Dialect } from './test-db.js';
import { byDialect } from './by-dialect.js';
import { layerScripts } from './template-databases.js';

export interface ProxyStore {
  readonly dialect: Dialect;
  /** The proxy's database option. */
  readonly args: string[];
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
  store(): SubagentContextStore;
  close(): Promise<void>;
}

let counter = 0;

export async function openProxyStore(dialect: Dialect, options: { hostAndPackage?: boolean } = {}): Promise<ProxyStore> {
  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-proxy-'));
    const file = join(dir, 'nested', 'proxy.db');
    let db: Database.Database | undefined;
    const open = () => (db ??= new Database(file, { fileMustExist: !options.hostAndPackage }));
    if (options.hostAndPackage) {
      mkdirSync(join(dir, 'nested'));
      for (const s of [...layerScripts('sqlite', 'host'), ...layerScripts('sqlite', 'package')]) open().exec(s.sql);
    }
    return {
      dialect,
      args: ['--sqlite', file],
      query: async <T>(sql: string, params: unknown[] = []) => {
        const bound = Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]));
        return open()
          .prepare(sql.replace(/\$(\d+)/g, '@p$1'))
          .all(...(params.length ? [bound] : [])) as T[];
      },
      exec: async (sql) => void open().exec(sql),
      store: () => createSqliteStore(open()),
      close: async () => {
        db?.close();
        await writersGone(file);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createDatabase(inject('pgUrl'), `proxy_${process.pid}_${Date.now().toString(36)}_${counter++}`, {
    template: options.hostAndPackage ? inject('templates').postgres.package : undefined,
  });
  let pool: pg.Pool | undefined;
  const open = () => (pool ??= database.pool({ max: 4 }));
  return {
    dialect,
    args: ['--postgres', database.url],
    query: async <T>(sql: string, params: unknown[] = []) => (await open().query(sql, params)).rows as T[],
    exec: async (sql) => void (await open().query(sql)),
    store: () => createPostgresStore(open()),
    close: async () => {
      await writersGone(database.url); // one left to finish alone may still append to the test's log file
      await database.drop();
    },
  };
}

/**
 * Waits (at most 30 s) until no proxy writer (src/proxy/writer-process.ts) writes to `target`
 * (a SQLite path or a PostgreSQL URL). A writer left to finish alone outlives its proxy:
 * removing a folder while it closes the store races the removal of its -wal and -shm files,
 * and its log line may land in a folder being removed (rmdir: ENOTEMPTY, seen in CI). Linux
 * /proc: the writer's environment holds its config, the target in it (never its argv, which
 * every local user can read).
 */
async function writersGone(target: string): Promise<void> {
  const inConfig = JSON.stringify(target).slice(1, -1);
  const writers = () =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          return argv.includes('writer-process.js') && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(inConfig);
        } catch {
          return false; // exited meanwhile
        }
      });
  const end = Date.now() + 30_000;
  while (writers().length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

/** The pid of a proxy's writer process once it runs (Linux /proc: the proxy's children, by their argv). */
export async function proxyWriterPid(proxy: number, timeoutMs = 20_000): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const children = readdirSync(`/proc/${proxy}/task`).flatMap((t) =>
      readFileSync(`/proc/${proxy}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
    );
    const writer = children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('writer-process.js'));
    if (writer) return Number(writer);
    if (Date.now() > end) throw new Error('no writer process started');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The proxy (built binary) in front of the fake agent. */
export function proxiedAgent(proxyArgs: readonly string[], env: NodeJS.ProcessEnv = {}): AcpClient {
  return new AcpClient(process.execPath, [CLI, 'proxy', ...proxyArgs, '--', process.execPath, FAKE_AGENT], { ...PROXY_TEST_ENV, ...env });
}

/**
 * The proxy waits for its writer (up to 30 s) instead of leaving it to finish in the
 * background, so a test reads the rows once the proxy has exited; a background writer's log
 * never goes to the user's data directory.
 */
export const PROXY_TEST_ENV = {
  SUBAGENT_CONTEXT_PROXY_DRAIN_MS: '30000',
  SUBAGENT_CONTEXT_PROXY_LOG: join(tmpdir(), `subagent-context-proxy-test-${process.pid}.log`),
};

/** The fake agent with nothing in between. */
export function directAgent(env: NodeJS.ProcessEnv = {}): AcpClient {
  return new AcpClient(process.execPath, [FAKE_AGENT], env);
}

/** One ACP line launching a Claude Code subagent (`Agent`, pending): the proxy records a row for it. */
export function subagentLaunchLine(sessionId: string, toolCallId: string): string {
  const update = { sessionUpdate: 'tool_call', toolCallId, title: 'Task', status: 'pending', rawInput: {}, _meta: { claudeCode: { toolName: 'Agent' } } };
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } })}\n`;
}

/** The proxy (built binary) in front of `cat`, which echoes every line back: its stderr and the lines echoed so far, read as they come. */
export interface CatProxy {
  readonly process: ChildProcessWithoutNullStreams;
  stderr(): string;
  echoed(): number;
  /** Resolves with the exit code once the proxy has exited and its streams closed. */
  readonly closed: Promise<number | null>;
}

export function catProxy(args: readonly string[], env: NodeJS.ProcessEnv): CatProxy {
  const proxy = spawn(process.execPath, [CLI, 'proxy', ...args, '--', 'cat'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let echoed = 0;
  proxy.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  proxy.stdout.on('data', (c: Buffer) => void (echoed += c.toString().split('\n').length - 1));
  return { process: proxy, stderr: () => stderr, echoed: () => echoed, closed: new Promise((r) => proxy.on('close', r)) };
}
