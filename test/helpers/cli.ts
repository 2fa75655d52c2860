// Runs the real built binary (`node dist/src/cli.js`, produced by `npm run build`) as a child
// process and collects its exit code and output. Never imports the CLI in-process: the exit
// code, stdout and stderr are the contract under test.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
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
}

export function runCliBinary(args: readonly string[], timeoutMs = 30_000, options: CliRunOptions = {}): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, ...options });
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
