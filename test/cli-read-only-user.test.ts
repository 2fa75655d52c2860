// Issue 30 item 5: `report` and `health` read without writing, run as a user who may only read.
// The tests run as root, so the CLI runs as `nobody` (uid/gid 65534). SQLite: the store in a
// folder that user cannot write — WAL with nobody holding it (no -shm: a reader would have to
// create one), WAL while a writer holds it (rows only in the -wal), rollback journal — and a
// read-only file of the user's own; each answers what root's run answers, leaves the folder and
// the file as they were, and leaves nothing behind in the temporary directory. PostgreSQL: a
// role that may only SELECT.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientFor } from '../scripts/lib/postgres-database.js';
import { createSqliteStore } from '../src/index.js';
import { assertBuilt, cliReachableBy, runCliBinary, type CliRun } from './helpers/cli.js';
import { steppingClock } from './helpers/clock.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { seedReportFixture } from './helpers/report-fixture.js';

const NOBODY = { uid: 65534, gid: 65534 };
let cliDir: string;
/** The CLI nobody runs: this checkout's, or a hard-linked copy when the checkout is out of nobody's reach. */
let cli: string;
beforeAll(() => {
  assertBuilt();
  cliDir = mkdtempSync(join(tmpdir(), 'subagent-context-nobody-cli-'));
  chmodSync(cliDir, 0o755); // mkdtemp makes 0700
  cli = cliReachableBy(NOBODY, cliDir);
});
afterAll(() => rmSync(cliDir, { recursive: true, force: true }));
/** The child's environment: a TMPDIR the test watches, and no SUBAGENT_CONTEXT_DB. */
const asNobody = (args: string[], tmp: string): Promise<CliRun> => {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, HOME: tmp };
  delete env.SUBAGENT_CONTEXT_DB;
  return runCliBinary(args, 30_000, { ...NOBODY, env, cli });
};
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The report and health of `file` as root sees them (JSON), for comparison. */
async function rootView(file: string): Promise<{ report: string; health: string }> {
  const [report, health] = await Promise.all([runCliBinary(['report', '--json', '--sqlite', file]), runCliBinary(['health', '--json', '--sqlite', file])]);
  return { report: report.stdout, health: health.stdout };
}

describe('report and health as a user who cannot write [sqlite]', () => {
  let folder: string;
  let tmp: string;
  let file: string;
  let writer: Database.Database | undefined;

  /** A migrated store with the report fixture, in `folder` (root's, mode 755: nobody may read, not write). */
  async function makeStore(journal: 'wal' | 'delete'): Promise<void> {
    const seeded = await openTestDb('sqlite', 'package');
    try {
      await seedReportFixture(seeded);
      seeded.sqlite!.pragma('wal_checkpoint(TRUNCATE)');
      copyFileSync(seeded.location, file); // as root: the file is root's
    } finally {
      await seeded.close();
    }
    const db = new Database(file);
    db.pragma(`journal_mode = ${journal}`);
    db.close(); // a clean close: in WAL mode, no -wal or -shm is left
    chmodSync(file, 0o644);
  }
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'subagent-context-ro-'));
    chmodSync(folder, 0o755);
    file = join(folder, 'store.db');
    tmp = mkdtempSync(join(tmpdir(), 'subagent-context-ro-tmp-'));
    chownSync(tmp, NOBODY.uid, NOBODY.gid);
  });
  afterEach(() => {
    writer?.close();
    writer = undefined;
    rmSync(folder, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  async function expectSameAsRoot(expectedHealthCode: number): Promise<void> {
    const before = { listing: readdirSync(folder).sort(), hash: sha(file) };
    const expected = await rootView(file);
    // root's runs may create -shm in WAL mode; what nobody's run changes is measured from here.
    const listing = readdirSync(folder).sort();
    const report = await asNobody(['report', '--json', '--sqlite', file], tmp);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(report.stdout).toBe(expected.report);
    expect(JSON.parse(report.stdout).provenance.rows).toBeGreaterThan(0);
    const health = await asNobody(['health', '--json', '--sqlite', file], tmp);
    expect(health.stderr).toBe('');
    expect(health.code).toBe(expectedHealthCode);
    expect(health.stdout).toBe(expected.health);
    const human = await asNobody(['report', '--sqlite', file], tmp);
    expect(human.code).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(listing);
    expect(before.listing.every((f) => listing.includes(f))).toBe(true);
    expect(sha(file)).toBe(before.hash);
    expect(readdirSync(tmp)).toEqual([]); // any private snapshot was removed
  }

  it('WAL mode, nobody holding the store (no -shm): the same answers as root, nothing written', async () => {
    await makeStore('wal');
    expect(readdirSync(folder)).toEqual(['store.db']);
    const before = sha(file);
    const report = await asNobody(['report', '--json', '--sqlite', file], tmp);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    const health = await asNobody(['health', '--json', '--sqlite', file], tmp);
    expect(health.code).toBe(0);
    expect(readdirSync(folder)).toEqual(['store.db']);
    expect(sha(file)).toBe(before);
    expect(readdirSync(tmp)).toEqual([]);
    const expected = await rootView(file);
    expect(report.stdout).toBe(expected.report);
    expect(health.stdout).toBe(expected.health);
  });

  it('WAL mode while a writer holds the store: rows still only in the -wal are read too', async () => {
    await makeStore('wal');
    writer = new Database(file);
    writer.pragma('wal_autocheckpoint = 0');
    const store = createSqliteStore(writer, { clock: steppingClock() });
    const rowsBefore = (await store.report()).provenance.rows;
    writer.exec(`DELETE FROM task_session_subagents WHERE id IN (SELECT id FROM task_session_subagents LIMIT 1)`);
    expect((await store.report()).provenance.rows).toBe(rowsBefore - 1);
    await expectSameAsRoot(0);
    const seen = await asNobody(['report', '--json', '--sqlite', file], tmp);
    expect(JSON.parse(seen.stdout).provenance.rows).toBe(rowsBefore - 1);
  });

  it('rollback journal mode: the same answers as root, nothing written', async () => {
    await makeStore('delete');
    await expectSameAsRoot(0);
  });

  it("a read-only file of the user's own, in a folder of theirs (WAL): the same answers", async () => {
    await makeStore('wal');
    chownSync(folder, NOBODY.uid, NOBODY.gid);
    chownSync(file, NOBODY.uid, NOBODY.gid);
    chmodSync(file, 0o444);
    await expectSameAsRoot(0);
  });
});

describe('report and health as a role that may only read [postgres]', () => {
  let db: TestDb;
  const reader = `reader_${process.pid}_${Date.now().toString(36)}`;
  beforeAll(async () => {
    db = await openTestDb('postgres', 'package');
    await seedReportFixture(db);
    await db.exec(`CREATE ROLE ${reader} LOGIN PASSWORD 'reader-secret'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}`);
  });
  afterAll(async () => {
    await db.close();
    const admin = clientFor(new URL('/postgres', db.location).toString());
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${reader}`);
    await admin.end();
  });

  it('the same answers as the owner; nothing to write with', async () => {
    const url = new URL(db.location);
    url.username = reader;
    url.password = 'reader-secret';
    const tmp = mkdtempSync(join(tmpdir(), 'subagent-context-ro-tmp-'));
    chownSync(tmp, NOBODY.uid, NOBODY.gid);
    try {
      for (const command of ['report', 'health']) {
        const owner = await runCliBinary([command, '--json', '--postgres', db.location]);
        const run = await asNobody([command, '--json', '--postgres', url.toString()], tmp);
        expect(run.stderr, command).toBe('');
        expect(run.code, command).toBe(owner.code);
        expect(run.stdout, command).toBe(owner.stdout);
      }
      // The role really may only read.
      const [{ can }] = await db.query<{ can: boolean }>(`SELECT has_table_privilege($1, 'task_session_subagents', 'INSERT') AS can`, [reader]);
      expect(can).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
