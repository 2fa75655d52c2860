// `subagent-context demo` never deletes or writes into a database it did not make (#16 item 1),
// on both dialects, through the CLI's dispatcher. SQLite: a file holding only a user's table,
// only a view, another application's mark, a live WAL, or bytes that are not a database is
// refused with one line and exit 2 (DemoRefusal, `demo_refused`), and the file, its -wal and
// its -shm are byte-identical afterwards (nothing created beside them either). An empty file,
// or a database with no schema object, is used in place. PostgreSQL: any table, view,
// sequence or function someone made is refused, and the database is unchanged.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { createDatabase, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { runCli } from '../src/cli/main.js';
import { describeBothDialects } from './helpers/test-db.js';

async function demo(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['demo', ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const snapshot = (dir: string) => Object.fromEntries(readdirSync(dir).map((name) => [name, sha256(join(dir, name))]));

/** One refusal line through the CLI's error path: exit 2, nothing on stdout. */
function expectRefused(result: { code: number; out: string; err: string }, reason: RegExp): void {
  expect(result.code).toBe(EXIT.usage);
  expect(result.out).toBe('');
  expect(result.err).toMatch(/^subagent-context: refusing to run: [^\n]*\n$/);
  expect(result.err).toMatch(reason);
}

describeBothDialects('demo refuses a database it did not make', (dialect) => {
  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    let dir: string;
    beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'subagent-context-demo-refusal-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    let n = 0;
    /** A folder holding one file made by `make`, with whatever SQLite left beside it. */
    const fileMadeBy = (make: (file: string) => void) => {
      const folder = mkdtempSync(join(dir, `case-${n++}-`));
      const file = join(folder, 'their.db');
      make(file);
      return { folder, file };
    };
    const withDb = (file: string, sql: string, pragmas: string[] = []) => {
      const db = new Database(file);
      for (const p of pragmas) db.pragma(p);
      db.exec(sql);
      db.close();
    };

    for (const [name, make, reason] of [
      [
        'only a user table with rows',
        (f: string) => withDb(f, `CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ada')`),
        /holds table users/,
      ],
      ['only a view', (f: string) => withDb(f, `CREATE VIEW answer AS SELECT 42 AS n`), /holds view answer/],
      ['only a user table, in WAL mode', (f: string) => withDb(f, `CREATE TABLE notes (t TEXT)`, ['journal_mode = WAL']), /holds table notes/],
      [
        'no table, but another application’s id',
        (f: string) => withDb(f, '', ['application_id = 1234']),
        /belongs to another application \(application_id 0x4d2\)/,
      ],
      ['no table, but a user_version', (f: string) => withDb(f, '', ['user_version = 7']), /has a user_version set by another application/],
      [
        'bytes that are not a database',
        (f: string) => writeFileSync(f, 'my diary, not a database, long enough to have a header of a hundred bytes or more: ' + 'x'.repeat(200)),
        /is not a SQLite database/,
      ],
    ] as const) {
      it(`refuses a file with ${name}, and leaves every byte as it was`, async () => {
        const { folder, file } = fileMadeBy(make);
        const before = snapshot(folder);
        expectRefused(await demo(['--sqlite', file]), reason);
        expect(snapshot(folder)).toEqual(before);
      });
    }

    it('refuses a database another process has open (its -wal holds data), and leaves the file, -wal and -shm as they were', async () => {
      const { folder, file } = fileMadeBy((f) => withDb(f, 'SELECT 1'));
      const owner = new Database(file);
      try {
        owner.pragma('journal_mode = WAL');
        owner.pragma('wal_autocheckpoint = 0');
        owner.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY); INSERT INTO users VALUES (1)`);
        expect(existsSync(`${file}-wal`) && existsSync(`${file}-shm`)).toBe(true);
        const before = snapshot(folder);
        expectRefused(await demo(['--sqlite', file]), /has a non-empty -wal file beside it/);
        expect(snapshot(folder)).toEqual(before);
        expect(owner.prepare('SELECT id FROM users').all()).toEqual([{ id: 1 }]);
      } finally {
        owner.close();
      }
    });

    it('refuses a symbolic link to nothing (SQLite would create its target, wherever it points)', async () => {
      const folder = mkdtempSync(join(dir, 'dangling-'));
      const target = join(folder, 'elsewhere', 'created.db');
      symlinkSync(target, join(folder, 'demo.db'));
      expectRefused(await demo(['--sqlite', join(folder, 'demo.db')]), /is a symbolic link to nothing/);
      expect(readdirSync(folder)).toEqual(['demo.db']);
    });

    it('a database that holds nothing (an empty file, every table dropped) is used in place', async () => {
      for (const make of [(f: string) => writeFileSync(f, ''), (f: string) => withDb(f, 'CREATE TABLE t (x); DROP TABLE t')]) {
        const { file } = fileMadeBy(make);
        const result = await demo(['--sqlite', file]);
        expect(result.err).toBe('');
        expect(result.code).toBe(EXIT.ok);
        const db = new Database(file, { readonly: true });
        expect(db.prepare(`SELECT count(*) AS n FROM task_session_subagents`).get()).toEqual({ n: expect.any(Number) });
        db.close();
      }
    });
  } else {
    const databases: CreatedDatabase[] = [];
    afterEach(async () => {
      for (const d of databases.splice(0)) await d.drop();
    });
    let n = 0;
    const objects = `SELECT c.relname::text AS name, c.relkind::text AS kind FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
                      WHERE s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname !~ '^pg_toast'
                      UNION ALL SELECT p.proname::text, 'function' FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = 'public'
                      ORDER BY 1, 2`;

    for (const [name, sql, reason] of [
      ['only a user table with rows', `CREATE TABLE users (id int PRIMARY KEY, name text); INSERT INTO users VALUES (1, 'ada')`, /holds table public\.users/],
      ['only a view', `CREATE VIEW answer AS SELECT 42 AS n`, /holds view public\.answer/],
      ['only a table in a schema of its own', `CREATE SCHEMA app; CREATE TABLE app.accounts (id int)`, /holds table app\.accounts/],
      ['only a sequence', `CREATE SEQUENCE invoice_numbers`, /holds sequence public\.invoice_numbers/],
      ['only a function', `CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS 'SELECT 42'`, /holds function public\.answer/],
    ] as const) {
      it(`refuses a database with ${name}, and leaves it as it was`, async () => {
        const database = await createDatabase(inject('pgUrl'), `demo_refusal_${process.pid}_${Date.now().toString(36)}_${n++}`);
        databases.push(database);
        const pool = database.pool({ max: 1 });
        await pool.query(sql);
        const before = (await pool.query(objects)).rows;
        const result = await demo(['--postgres', database.url]);
        expectRefused(result, reason);
        expect(result.err).toMatch(/is not empty/);
        expect((await pool.query(objects)).rows).toEqual(before);
        if (name.includes('rows')) expect((await pool.query('SELECT * FROM users')).rows).toEqual([{ id: 1, name: 'ada' }]);
      });
    }
  }
});
