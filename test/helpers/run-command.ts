// Runs a command to completion without blocking the event loop (installs run side by side),
// and keeps its output for the failure message.
import { spawn } from 'node:child_process';

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout then stderr, for failure messages. */
  readonly output: string;
}

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the command (SIGKILL) after this long; its result then has `timedOut: true` and code null. */
  timeoutMs?: number;
}

export function run(command: string, args: readonly string[], options: RunOptions): Promise<CommandResult & { timedOut: boolean }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, output: `${stdout}${stderr}`, timedOut });
    });
  });
}
