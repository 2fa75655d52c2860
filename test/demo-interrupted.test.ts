// Ctrl-C during `subagent-context demo --sqlite FILE`: the run stops with FILE, FILE-wal and
// FILE-shm left behind. The next run refuses them as it refuses any database with a live
// -wal (it may still be open), but says they are the demo's own leftovers and prints the
// command that removes them; following it, the demo runs. SQLite only: PostgreSQL leaves no
// files, and a rerun there is refused like any database that is not empty
// (test/demo-refuses-foreign-databases.test.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, oneLineError, runCliBinary } from './helpers/cli.js';
import { run } from './helpers/run-command.js';

let dir: string;
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "subagent-context-demo-interrupted-it's-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** Starts the demo and sends SIGINT (what Ctrl-C sends) once its -wal holds data: mid-run. */
async function interruptedDemo(file: string): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, 'demo', '--sqlite', file], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : null))));
  const deadline = Date.now() + 20_000;
  while (walBytes(file) === 0 && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  child.kill('SIGINT');
  return exited;
}

describe('demo: a run cut short by Ctrl-C', () => {
  it('the rerun names the leftovers as its own and how to remove them; following that, the demo runs', async () => {
    const file = join(dir, 'demo.db');
    expect(await interruptedDemo(file)).not.toBe(0);
    expect(walBytes(file)).toBeGreaterThan(0); // the state Ctrl-C left: a -wal with data beside FILE

    const rerun = await runCliBinary(['demo', '--sqlite', file]);
    expect(rerun.code).toBe(2);
    expect(rerun.stdout).toBe('');
    const line = oneLineError(rerun);
    expect(line).toContain(`${file} is this demo's own database, left by a run that did not finish`);
    expect(line).not.toContain('choose another file');
    const remove = line.match(/run again: (rm .*)$/)![1];
    expect(remove).toContain(`'${file.replace(/'/g, `'\\''`)}-wal'`);

    // The command as printed, in a shell (the folder's name has a quote in it).
    const rm = await run('sh', ['-c', remove], { cwd: dir });
    expect(rm.code, rm.output).toBe(0);
    expect(existsSync(file) || existsSync(`${file}-wal`) || existsSync(`${file}-shm`)).toBe(false);
    const after = await runCliBinary(['demo', '--sqlite', file]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('What it found');
  }, 90_000);
});
