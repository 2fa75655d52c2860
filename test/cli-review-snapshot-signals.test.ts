// A private snapshot of a SQLite store is never left behind by an interruption (review of the
// CLI, bug 3). `report` and `health` read a WAL store in a folder the user cannot write
// through a copy under the temporary directory (src/cli/sqlite-snapshot.ts); Ctrl-C or SIGTERM
// while the copy existed left the copy, a whole copy of the data, in /tmp. Now SIGINT, SIGTERM
// and SIGHUP remove it, and the process still dies by the signal: the shell that ran it
// reports 130, 143, 129. The real CLI (from source, through tsx: the change is not built yet)
// runs as a user who may read the store but not write its folder — `nobody` when the tests run
// as root, else this user with the folder made read-only — under a shell that prints `$?`; the
// test stops it the moment the copy's folder appears (inotify), checks the copy is there, sends
// the signal and lets it go on. SQLite only: a PostgreSQL store is never copied.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { snapshotOf } from '../src/cli/sqlite-snapshot.js';
import { checkoutEntriesIn } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { openTestDb } from './helpers/test-db.js';

const AS_ROOT = process.getuid?.() === 0;
/** Who runs the CLI: nobody may read root's folder and not write it; a user's own read-only folder does the same for them. */
const USER = AS_ROOT ? { uid: 65534, gid: 65534 } : {};
const SNAPSHOT = 'subagent-context-read-';
const INTERRUPTIONS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let scratch: string;
let folder: string;
let tmp: string;
let checkout: string;

/** The child's environment: its own TMPDIR (watched: the snapshot and tsx's cache go there). */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, HOME: tmp };
  delete env.SUBAGENT_CONTEXT_DB;
  delete env.NODE_OPTIONS;
  return env;
}

/** This checkout, or (when it is out of the user's reach) its sources hard-linked into a folder they can read. */
function checkoutReachable(): string {
  const probe = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--version'], { ...USER, cwd: process.cwd(), env: childEnv(), stdio: 'ignore' });
  if (probe.status === 0) return process.cwd();
  return checkoutEntriesIn(scratch, 'checkout-', ['src', 'generated', 'node_modules', 'package.json', 'tsconfig.json']);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'cli-review-signals-'));
  chmodSync(scratch, 0o755);
  folder = join(scratch, 'store');
  tmp = join(scratch, 'tmp');
  for (const dir of [folder, tmp]) {
    mkdirSync(dir);
    chmodSync(dir, 0o755);
  }
  if (AS_ROOT) chownSync(tmp, 65534, 65534);
  // The report's fixture and 64 MB more: the copy takes tens of milliseconds, time to catch it.
  const seeded = await openTestDb('sqlite', 'package');
  try {
    await seedReportFixture(seeded);
    seeded.sqlite!.exec('CREATE TABLE padding (b BLOB)');
    const insert = seeded.sqlite!.prepare('INSERT INTO padding VALUES (randomblob(1048576))');
    for (let i = 0; i < 64; i++) insert.run();
    seeded.sqlite!.pragma('wal_checkpoint(TRUNCATE)');
    copyFileSync(seeded.location, join(folder, 'store.db'));
  } finally {
    await seeded.close();
  }
  const db = new Database(join(folder, 'store.db'));
  db.pragma('journal_mode = WAL');
  db.close(); // a clean close: no -wal, no -shm, so a reader would have to create one
  chmodSync(join(folder, 'store.db'), 0o644);
  if (!AS_ROOT) chmodSync(folder, 0o555);
  checkout = checkoutReachable();
}, 120_000);
afterAll(() => {
  if (folder) chmodSync(folder, 0o755);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const snapshots = () => readdirSync(tmp).filter((name) => name.startsWith(SNAPSHOT));

interface Interrupted {
  /** `$?` as the shell saw it. */
  readonly status: number;
  /** The copy's folder was there when the signal was sent. */
  readonly held: boolean;
  readonly stderr: string;
}

/** Runs `command` on the store under sh, and sends `signal` while its snapshot exists. */
function interrupt(command: string, signal: (typeof INTERRUPTIONS)[number]): Promise<Interrupted> {
  return new Promise((resolvePromise, reject) => {
    const cli = join(checkout, 'src', 'cli.ts');
    const script = '"$@" >/dev/null & echo "pid=$!"; wait "$!"; echo "status=$?"';
    const args = [process.execPath, '--import', 'tsx', cli, command, '--sqlite', join(folder, 'store.db')];
    const shell = spawn('sh', ['-c', script, 'sh', ...args], { ...USER, cwd: checkout, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    let held: boolean | null = null;
    const watcher = watch(tmp, (_event, name) => {
      if (held !== null || !name?.startsWith(SNAPSHOT)) return;
      const pid = Number(/pid=(\d+)/.exec(stdout)?.[1]);
      if (!pid) return reject(new Error(`a snapshot appeared before the CLI's pid was known: ${stdout}`));
      process.kill(pid, 'SIGSTOP'); // held still: what the test sees is what the signal meets
      held = existsSync(join(tmp, name));
      process.kill(pid, signal);
      process.kill(pid, 'SIGCONT');
    });
    shell.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    shell.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    shell.on('error', reject);
    shell.on('close', () => {
      watcher.close();
      const status = /status=(\d+)/.exec(stdout);
      if (!status) return reject(new Error(`no status from the shell: ${stdout} ${stderr}`));
      resolvePromise({ status: Number(status[1]), held: held === true, stderr });
    });
  });
}

describe('cli review: an interrupted read of a snapshot removes it [sqlite]', () => {
  afterEach(() => {
    for (const name of snapshots()) rmSync(join(tmp, name), { recursive: true, force: true }); // one failure, not every test after it
  });

  it.each([
    ['report', 'SIGINT'],
    ['health', 'SIGTERM'],
    ['report', 'SIGHUP'],
    ['health', 'SIGINT'],
  ] as const)('%s, %s while the copy exists: the copy is gone, the shell sees the signal’s code', async (command, signal) => {
    const run = await interrupt(command, signal);
    expect(run.held, `the copy's folder was not there to interrupt (${run.stderr})`).toBe(true);
    expect(snapshots()).toEqual([]);
    expect(run.status).toBe(128 + constants.signals[signal]); // 130, 143, 129
  });

  it('without a signal the same run ends normally and leaves nothing', () => {
    const cli = join(checkout, 'src', 'cli.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', cli, 'report', '--json', '--sqlite', join(folder, 'store.db')], {
      ...USER,
      cwd: checkout,
      env: childEnv(),
    });
    expect(run.stderr.toString()).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout.toString()).provenance.rows).toBeGreaterThan(0);
    expect(snapshots()).toEqual([]);
    expect(readdirSync(folder)).toEqual(['store.db']); // read through a copy: no -shm made beside the store
  });

  it('in process: a snapshot holds its signal handlers only while it exists, on success and on failure', async () => {
    const counts = () => INTERRUPTIONS.map((s) => process.listenerCount(s));
    const before = counts();
    const tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it on each call
    try {
      const held = await snapshotOf(join(folder, 'store.db'));
      expect(existsSync(held.file)).toBe(true);
      expect(counts()).toEqual(before.map((n) => n + 1));
      await held.remove();
      expect(existsSync(held.file)).toBe(false);
      expect(counts()).toEqual(before);
      await expect(snapshotOf(join(folder, 'missing.db'))).rejects.toThrow(/ENOENT/);
      expect(counts()).toEqual(before);
      expect(snapshots()).toEqual([]);
    } finally {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
    }
  });
});
