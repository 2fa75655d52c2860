// Runs the real built binary (`node dist/src/cli.js`, produced by `npm run build`) as a child
// process and collects its exit code and output. Never imports the CLI in-process: the exit
// code, stdout and stderr are the contract under test.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Dialect } from './test-db.js';
import { byDialect } from './by-dialect.js';

export const CLI = resolve('dist/src/cli.js');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the CLI tests`);
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How the child runs: `env` replaces the environment; `uid`/`gid` run it as another user (the tests run as root). */
export interface CliRunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly uid?: number;
  readonly gid?: number;
  /** The built CLI to run instead of this checkout's (cliReachableBy: a copy another user can reach). */
  readonly cli?: string;
}

export function runCliBinary(args: readonly string[], timeoutMs = 30_000, options: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const { cli = CLI, ...spawnOptions } = options;
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, ...spawnOptions });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** The database option for a test database of either dialect. */
export function databaseArgs(db: { dialect: Dialect; location: string }): string[] {
  return byDialect(db.dialect, { sqlite: ['--sqlite', db.location], postgres: ['--postgres', db.location] });
}

/** Exactly one line on stderr, prefixed with the program name, and no stack trace. */
export function oneLineError(run: CliRun): string {
  const text = run.stderr.replace(/\n$/, '');
  if (text.includes('\n') || /\n\s+at /.test(run.stderr) || !text.startsWith('subagent-context: ')) {
    throw new Error(`expected one error line, got:\n${run.stderr}`);
  }
  return text;
}

/**
 * `entries` of this checkout in a new 0755 folder under `parent`, for a user who cannot reach
 * the checkout: hard-linked (`cp -al`: no bytes copied, same files), or copied where `parent`
 * is on another file system than the checkout (the suite's temp folder is on tmpfs,
 * test/setup/scratch-folder.ts, and a clone made by `mktemp -d` is on disk).
 */
export function checkoutEntriesIn(parent: string, prefix: string, entries: readonly string[]): string {
  const copy = mkdtempSync(join(parent, prefix));
  chmodSync(copy, 0o755);
  for (const entry of entries) {
    const linked = spawnSync('cp', ['-al', resolve(entry), join(copy, entry)]);
    if (linked.status === 0) continue;
    rmSync(join(copy, entry), { recursive: true, force: true }); // what the links made before the first refusal
    const copied = spawnSync('cp', ['-a', resolve(entry), join(copy, entry)]);
    if (copied.status !== 0) throw new Error(`cp -al ${entry}: ${linked.stderr.toString()}; cp -a ${entry}: ${copied.stderr.toString()}`);
  }
  return copy;
}

/**
 * The built CLI as `user` can run it. A clone inside a 0700 folder (mktemp -d makes those) is
 * out of another user's reach, so then dist/, node_modules/ and package.json are put in a 0755
 * folder under `parent` (checkoutEntriesIn); else this checkout's.
 */
export function cliReachableBy(user: { uid: number; gid: number }, parent: string): string {
  if (spawnSync(process.execPath, [CLI, '--version'], { ...user, stdio: 'ignore' }).status === 0) return CLI;
  const copy = checkoutEntriesIn(parent, 'cli-', ['dist', 'node_modules', 'package.json']);
  return join(copy, 'dist', 'src', 'cli.js');
}
