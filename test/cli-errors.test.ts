// The CLI's failure paths, the real binary on both dialects: bad arguments exit 2, a database
// that cannot be opened exits 7, each with exactly one line on stderr and no stack trace;
// --help exits 0; `health` never creates a SQLite file that does not exist; and a statement
// that fails inside checkHealth (wrapped as HealthCheckError 'database_error') is reported by
// the driver's own code on its cause, like any other database failure.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';

beforeAll(assertBuilt);

describeBothDialects('cli: errors', (dialect) => {
  let db: TestDb;
  let scratch: string;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    scratch = mkdtempSync(join(tmpdir(), 'subagent-context-cli-'));
  });
  afterAll(async () => {
    await db.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  // Bad arguments never reach the database; they are run concurrently to keep this file fast.
  it('bad arguments: exit 2 and exactly one line each', async () => {
    const option = byDialect(dialect, { sqlite: '--sqlite', postgres: '--postgres' });
    const other = byDialect(dialect, { sqlite: ['--postgres', 'postgres://x/y'], postgres: ['--sqlite', 'x.db'] });
    const cases: [string[], RegExp][] = [
      [[], /a command is required \(commands: migrate, health/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['health', '--verbose'], /Unknown option '--verbose'.*subagent-context health --help/],
      [['health', 'extra'], /Unexpected argument 'extra'/],
      [['migrate', option], /argument missing/],
      [['health', ...databaseArgs(db), ...other], /either --sqlite or --postgres, not both/],
    ];
    const runs = await Promise.all(cases.map(([args]) => runCliBinary(args)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i];
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(oneLineError(run), args.join(' ')).toMatch(message);
    });
  });

  it('--help prints the commands and exits 0; so does <command> --help', async () => {
    const [top, health] = await Promise.all([runCliBinary(['--help']), runCliBinary(['health', '--help'])]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^ {2}migrate +\S/m);
    expect(top.stdout).toMatch(/^ {2}health +\S/m);
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(/^usage: subagent-context health \[--sqlite FILE \| --postgres URL\] \[--json\]/);
  });

  it("a statement that fails during health: exit 7, one line with the driver's code", async () => {
    const broken = await openTestDb(dialect, 'package');
    try {
      const capture = formatKeyInstant(1_785_000_000_000_000_000n);
      await setKeys(broken, { [KEY.captureSince]: capture, [KEY.executionSince]: capture });
      await broken.exec('ALTER TABLE task_session_messages RENAME COLUMN metadata TO metadata_elsewhere');
      const run = await runCliBinary(['health', ...databaseArgs(broken)]);
      expect(run.code).toBe(7);
      expect(run.stdout).toBe('');
      expect(oneLineError(run)).toMatch(
        byDialect(dialect, {
          sqlite: /^subagent-context: SQLite SQLITE_ERROR: no such column: .*metadata/,
          postgres: /^subagent-context: PostgreSQL 42703: column .*metadata.* does not exist/,
        }),
      );
    } finally {
      await broken.close();
    }
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('a missing SQLite file: exit 7, and health does not create it', async () => {
      const file = join(scratch, 'missing.db');
      for (const command of ['health', 'migrate']) {
        const run = await runCliBinary([command, '--sqlite', file]);
        expect(run.code).toBe(7);
        expect(oneLineError(run)).toBe(`subagent-context: no such SQLite file: ${file}`);
        expect(existsSync(file)).toBe(false);
      }
    });

    it('a file that is not a SQLite database, and a directory: exit 7, one line each', async () => {
      const junk = join(scratch, 'junk.db');
      writeFileSync(junk, 'this is not a database, just some bytes long enough to have a header');
      const notDb = await runCliBinary(['health', '--sqlite', junk]);
      expect(notDb.code).toBe(7);
      expect(oneLineError(notDb)).toMatch(/SQLITE_NOTADB/);
      const dir = await runCliBinary(['health', '--sqlite', scratch]);
      expect(dir.code).toBe(7);
      expect(oneLineError(dir)).toBe(`subagent-context: not a file: ${scratch}`);
    });
  } else {
    it('an unreachable server: exit 7, one line, no password echoed', async () => {
      const run = await runCliBinary(['health', '--postgres', 'postgres://someone:hunter2@127.0.0.1:1/nowhere']);
      expect(run.code).toBe(7);
      const line = oneLineError(run);
      expect(line).toMatch(/cannot reach the database \(ECONNREFUSED\)/);
      expect(line).not.toContain('hunter2');
    });

    it('a database that does not exist: exit 7 with its SQLSTATE', async () => {
      const url = new URL(db.location);
      url.pathname = '/no_such_database_here';
      const run = await runCliBinary(['health', '--postgres', url.toString()]);
      expect(run.code).toBe(7);
      expect(oneLineError(run)).toMatch(/PostgreSQL 3D000: database "no_such_database_here" does not exist/);
    });

    it('a value that is not a PostgreSQL URL: exit 2', async () => {
      const run = await runCliBinary(['health', '--postgres', 'localhost:5432']);
      expect(run.code).toBe(2);
      expect(oneLineError(run)).toMatch(/postgres:\/\/ or postgresql:\/\/ URL/);
    });
  }
});
