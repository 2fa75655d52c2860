// `report --html FILE` never destroys a file (#16 items 2 and 9), the real binary on both
// dialects: never onto the SQLite file being read or its -wal/-shm (same device and inode,
// whatever the spelling: the path itself, a hard link, a symbolic link; and a sidecar name
// SQLite has not created yet); never through a symbolic link at FILE; never over an existing
// file without --force; each refusal exits 2 and leaves every byte as it was. A failure of the
// disk (no space, a read-only or missing folder) exits 73, never 2 ("usage"), and leaves
// neither FILE nor a temporary file behind. The full and read-only folders are real tmpfs
// mounts in a private mount namespace (unshare), not mocks.
import { createHash } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { run } from './helpers/run-command.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';

beforeAll(assertBuilt);

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** Every file of a folder with its hash: what "left as it was" compares. */
const snapshot = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, lstatSync(join(dir, name)).isSymbolicLink() ? 'link' : sha256(join(dir, name))]));

describeBothDialects('cli: report --html target', (dialect) => {
  let db: TestDb;
  let dir: string;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
    dir = mkdtempSync(join(tmpdir(), 'subagent-context-html-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const report = (...extra: string[]) => runCliBinary(['report', ...databaseArgs(db), ...extra]);
  const fresh = (name: string) => {
    const folder = join(dir, name);
    mkdirSync(folder);
    return folder;
  };

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('never writes onto the database being read, by any name: the path, a hard link, a symbolic link', async () => {
      const file = db.location; // held open by the test in WAL mode: its -wal and -shm exist
      const folder = join(file, '..');
      expect(existsSync(`${file}-wal`) && existsSync(`${file}-shm`)).toBe(true);
      linkSync(file, join(dir, 'hard-link.db'));
      symlinkSync(file, join(dir, 'sym-link.db'));
      const before = { ...snapshot(folder), hard: sha256(join(dir, 'hard-link.db')) };
      for (const [target, why] of [
        [file, 'is the database being read'],
        [join(dir, 'hard-link.db'), 'is the database being read'],
        [join(dir, 'sym-link.db'), 'is a symbolic link'],
        [`${file}-wal`, "is the database's -wal file"],
        [`${file}-shm`, "is the database's -shm file"],
      ]) {
        for (const force of [[], ['--force']]) {
          const run = await report('--html', target, ...force);
          expect(run.code, `${target} ${force}`).toBe(2);
          expect(run.stdout).toBe('');
          expect(oneLineError(run)).toBe(
            `subagent-context: refusing --html: ${target} ${why}${why.startsWith('is a symbolic') ? '; give the path of a regular file (the link is never followed)' : '; the report never writes onto its input'}`,
          );
        }
      }
      expect({ ...snapshot(folder), hard: sha256(join(dir, 'hard-link.db')) }).toEqual(before);
      expect(lstatSync(join(dir, 'sym-link.db')).isSymbolicLink()).toBe(true);
    });

    it('never writes onto a sidecar SQLite has not created yet, spelled through a symbolic link to the database', async () => {
      const folder = fresh('closed');
      const file = join(folder, 'closed.db');
      db.sqlite!.pragma('wal_checkpoint(TRUNCATE)');
      writeFileSync(file, readFileSync(db.location)); // a closed copy: no -wal, -shm or -journal beside it
      symlinkSync(file, join(folder, 'alias.db'));
      const before = snapshot(folder);
      for (const sidecar of ['-wal', '-shm', '-journal']) {
        const run = await runCliBinary(['report', '--sqlite', join(folder, 'alias.db'), '--html', `${file}${sidecar}`]);
        expect(run.code, sidecar).toBe(2);
        expect(oneLineError(run)).toContain(`is the database's ${sidecar} file`);
      }
      expect(snapshot(folder)).toEqual(before);
    });
  }

  it('an existing file: refused without --force (untouched); replaced with --force, atomically, nothing left beside it', async () => {
    const folder = fresh('existing');
    const page = join(folder, 'page.html');
    writeFileSync(page, 'my notes, not a report');
    const refused = await report('--html', page);
    expect(refused.code).toBe(2);
    expect(oneLineError(refused)).toBe(`subagent-context: refusing --html: ${page} already exists; pass --force to replace it`);
    expect(readFileSync(page, 'utf8')).toBe('my notes, not a report');
    const replaced = await report('--html', page, '--force');
    expect(replaced.stderr).toBe('');
    expect(replaced.code).toBe(0);
    expect(readFileSync(page, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(readdirSync(folder)).toEqual(['page.html']);
    // A new file needs no --force; --force without --html is a usage error.
    const created = await report('--html', join(folder, 'new.html'));
    expect(created.code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['new.html', 'page.html']);
    const stray = await report('--force');
    expect(stray.code).toBe(2);
    expect(oneLineError(stray)).toMatch(/--force only applies to --html FILE/);
  });

  it('a symbolic link at FILE is never followed, with or without --force; a folder is not a file', async () => {
    const folder = fresh('link');
    const elsewhere = join(folder, 'precious.txt');
    writeFileSync(elsewhere, 'precious');
    symlinkSync(elsewhere, join(folder, 'page.html'));
    symlinkSync(join(folder, 'missing-target'), join(folder, 'dangling.html'));
    const before = snapshot(folder);
    for (const target of ['page.html', 'dangling.html']) {
      for (const force of [[], ['--force']]) {
        const run = await report('--html', join(folder, target), ...force);
        expect(run.code, `${target} ${force}`).toBe(2);
        expect(oneLineError(run)).toMatch(/is a symbolic link; give the path of a regular file/);
      }
    }
    expect(snapshot(folder)).toEqual(before);
    expect(existsSync(join(folder, 'missing-target'))).toBe(false);
    const dirRun = await report('--html', folder, '--force');
    expect(dirRun.code).toBe(2);
    expect(oneLineError(dirRun)).toBe(`subagent-context: refusing --html: ${folder} is not a regular file`);
  });

  it('a folder that does not exist: exit 73 (the output could not be written), not 2', async () => {
    const run = await report('--html', join(dir, 'no-such-folder', 'page.html'));
    expect(run.code).toBe(73);
    expect(oneLineError(run)).toMatch(/^subagent-context: cannot write --html .*no-such-folder\/page\.html \(ENOENT\): /);
  });

  it('no space left, a read-only folder: exit 73, one line, neither the page nor a temporary file left', async () => {
    for (const [mountOptions, code] of [
      ['size=4k', 'ENOSPC'],
      ['ro', 'EROFS'],
    ]) {
      const folder = fresh(`mount-${code}`);
      // A private user and mount namespace: the tmpfs exists only for this one process.
      const result = await run(
        'unshare',
        [
          '--user',
          '--map-root-user',
          '--mount',
          'sh',
          '-c',
          // After the CLI: what it left in the mount, on stdout (the CLI prints nothing there on failure).
          'mount -t tmpfs -o "$1" tmpfs "$2" && folder="$2" && shift 2 && { "$@"; code=$?; echo "left: $(ls -A "$folder")"; exit $code; }',
          'sh',
          mountOptions,
          folder,
          process.execPath,
          CLI,
          'report',
          ...databaseArgs(db),
          '--html',
          join(folder, 'page.html'),
          '--json',
        ],
        { cwd: dir },
      );
      expect(result.code, result.output).toBe(73);
      expect(result.stdout).toBe('left: \n');
      expect(result.stderr).toMatch(new RegExp(`^subagent-context: cannot write --html .*page\\.html \\(${code}\\): [^\\n]*\\n$`));
      expect(result.stderr).not.toMatch(/\.tmp/);
      expect(readdirSync(folder)).toEqual([]); // the mount is gone with its namespace; nothing reached the real folder
    }
  });
});
