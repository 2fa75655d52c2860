// `report --html FILE` (review of the CLI, bugs 4 and 5), in process (src/cli/main.ts) on both
// dialects:
// - `--force` over an existing file keeps that file's permissions: the page used to land with
//   the temporary file's 0666 & ~umask, so a 0600 page became readable by everyone;
// - any name the filesystem takes for FILE works: the temporary name was FILE's name plus 18
//   bytes, so a 240-byte name failed with ENAMETOOLONG (exit 73). Now it holds only FILE's
//   first 32 bytes (never half a character) beside the random part.
// Either way no temporary file is left beside FILE.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { databaseArgs } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const isPage = (file: string) => readFileSync(file, 'utf8').startsWith('<!DOCTYPE html>');

describeBothDialects('cli review: report --html FILE', (dialect) => {
  let db: TestDb;
  let dir: string;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => db.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-review-html-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const report = (...extra: string[]) => cli(['report', ...databaseArgs(db), '--json', ...extra]);

  // 0604 and 0664 are modes no usual umask gives a new file, so the test tells a kept mode from a fresh one.
  it.each([0o600, 0o604, 0o640, 0o664, 0o400].map((m) => [m.toString(8).padStart(4, '0'), m] as const))(
    '--force over a file of mode %s keeps that mode',
    async (_, mode) => {
      const file = join(dir, 'page.html');
      writeFileSync(file, 'the old page');
      chmodSync(file, mode);
      const run = await report('--html', file, '--force');
      expect(run.code, run.err).toBe(EXIT.ok);
      expect(statSync(file).mode & 0o777).toBe(mode);
      expect(isPage(file)).toBe(true);
      expect(readdirSync(dir)).toEqual(['page.html']);
    },
  );

  it('a FILE name as long as the filesystem takes (240 and 255 bytes, multibyte too) is written', async () => {
    const names = ['p'.repeat(235) + '.html', 'q'.repeat(250) + '.html', 'é'.repeat(125) + '.html', `${'x'.repeat(30)}€€€.html`];
    for (const name of names) {
      const file = join(dir, name);
      const run = await report('--html', file);
      expect(run.code, `${Buffer.byteLength(name)} bytes: ${run.err}`).toBe(EXIT.ok);
      expect(isPage(file)).toBe(true);
      const again = await report('--html', file, '--force');
      expect(again.code, again.err).toBe(EXIT.ok);
    }
    expect(readdirSync(dir).sort()).toEqual([...names].sort()); // no temporary file left behind
  });
});
