// A store's folder is made by a `mkdir -p` that ends (src/make-folder.ts). Node 20's own
// recursive mkdir never returns for a folder whose parent exists but cannot hold one (under
// /proc): a proxy's writer given `--sqlite /proc/x/y.db` spun a core for good after the proxy had
// exited, and `import` hung (a review, 2026-12-07). Now the path fails with ENOENT at once: the
// proxy WARNs and relays, its writer exits, and `import` exits 7. SQLite only: a PostgreSQL store
// has no folder.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFolder } from '../src/make-folder.js';
import { RECORDED_PROJECTS } from './helpers/claude-import.js';
import { assertBuilt, runCliBinary } from './helpers/cli.js';
import { goneWithin } from './helpers/processes.js';

beforeAll(assertBuilt);

describe('makeFolder [sqlite]', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'make-folder-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('makes every missing level, takes one that exists, refuses a file in the way', () => {
    makeFolder(join(scratch, 'a', 'b', 'c'));
    expect(statSync(join(scratch, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(() => makeFolder(join(scratch, 'a', 'b'))).not.toThrow();
    writeFileSync(join(scratch, 'file'), '');
    expect(() => makeFolder(join(scratch, 'file'))).toThrow(/EEXIST/);
    expect(() => makeFolder(join(scratch, 'file', 'x'))).toThrow(/ENOTDIR/);
  });

  it('a folder under /proc fails with ENOENT (Node 20 recursive mkdir never returns there)', () => {
    expect(() => makeFolder(`/proc/subagent-context-${randomBytes(4).toString('hex')}/x`)).toThrow(/ENOENT/);
  });

  it('proxy --sqlite under /proc: the WARN, the agent exit code, and no writer left behind', async () => {
    const marker = `/proc/subagent-context-${randomBytes(4).toString('hex')}`;
    const data = mkdtempSync(join(tmpdir(), 'make-folder-data-'));
    try {
      const agent = [process.execPath, '-e', 'setTimeout(() => process.exit(3), 1500)'];
      const run = await runCliBinary(['proxy', '--sqlite', `${marker}/y.db`, '--', ...agent], 30_000, { env: { ...process.env, XDG_DATA_HOME: data } });
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(`WARN cannot record: ENOENT: no such file or directory, mkdir '${marker}'`);
      expect(await goneWithin(marker, 10_000)).toEqual([]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  it('import --sqlite under /proc: exit 7 at once, naming the folder', async () => {
    const run = await runCliBinary(['import', 'claude-code', '--from', RECORDED_PROJECTS, '--sqlite', '/proc/subagent-context-none/y.db'], 20_000);
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toMatch(/ENOENT: no such file or directory, mkdir '\/proc\/subagent-context-none'/);
  });
});
