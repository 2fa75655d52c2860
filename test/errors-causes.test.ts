// The package's errors share one base (SubagentContextError: a stable `code`, the wrapped
// error on `cause`), and the CLI's classification keeps what it classified on `cause`, down
// to the driver's own error. Driver errors here are real ones (a file that is not a
// database, a database that does not exist); no mocks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, toCliError, usageError } from '../src/cli/cli-error.js';
import { EXIT } from '../src/cli/exit-codes.js';
import { toError } from '../src/errors.js';
import { createPostgresStore, createSqliteStore, HealthCheckError, SubagentContextError } from '../src/index.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';

describe('errors: one base with a code', () => {
  it('HealthCheckError and CliError derive from SubagentContextError and keep their own fields', () => {
    const health = new HealthCheckError('invalid_capture_since', 'bad key', { keys: { capture_since: '', backfill_through: null, execution_since: null } });
    expect(health).toBeInstanceOf(SubagentContextError);
    expect(health).toMatchObject({ name: 'HealthCheckError', code: 'invalid_capture_since', keys: { capture_since: '' } });
    expect('cause' in health).toBe(false); // nothing wrapped, nothing claimed
    const usage = usageError('no database');
    expect(usage).toBeInstanceOf(SubagentContextError);
    expect(usage).toMatchObject({ name: 'CliError', code: 'usage_error', exitCode: EXIT.usage });
    expect(new CliError(EXIT.internal, 'bug')).toMatchObject({ code: 'internal_error', exitCode: 70 });
  });

  it('toError returns an Error as is and wraps anything else with the value on cause', () => {
    const err = new RangeError('x');
    expect(toError(err)).toBe(err);
    const wrapped = toError('plain text');
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toBe('plain text');
    expect(wrapped.cause).toBe('plain text');
  });
});

describeBothDialects('errors: the driver error stays on cause', (dialect) => {
  let scratch: string;
  let db: TestDb;
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'subagent-context-errors-'));
    db = await openTestDb(dialect, 'package');
  });
  afterAll(async () => {
    await db.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A real driver failure on this dialect, as thrown. */
  async function driverFailure(): Promise<Error & { code?: unknown }> {
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const junk = join(scratch, 'junk.db');
      writeFileSync(junk, 'this is not a database, just some bytes long enough to have a header');
      const handle = new Database(junk);
      try {
        handle.pragma('schema_version');
      } catch (err) {
        return err as Error;
      } finally {
        handle.close();
      }
    } else {
      const url = new URL(db.location);
      url.pathname = '/no_such_database_for_errors';
      const pool = poolFor({ connectionString: url.toString(), max: 1 });
      try {
        await pool.query('SELECT 1');
      } catch (err) {
        return err as Error;
      } finally {
        await pool.end();
      }
    }
    throw new Error('the driver did not fail');
  }

  it('toCliError classifies a driver error by its code and keeps it on cause', async () => {
    const driver = await driverFailure();
    expect(driver.code).toBe(byDialect(dialect, { sqlite: 'SQLITE_NOTADB', postgres: '3D000' }));
    const cli = toCliError(driver, true);
    expect(cli).toMatchObject({ code: 'database_error', exitCode: EXIT.database });
    expect(cli.message).toMatch(byDialect(dialect, { sqlite: /^SQLite SQLITE_NOTADB: /, postgres: /^PostgreSQL 3D000: / }));
    expect(cli.cause).toBe(driver);
  });

  it("a wrapped driver failure from checkHealth keeps the chain: CliError → HealthCheckError → the driver's error", async () => {
    await db.exec('DROP TABLE IF EXISTS kandev_meta');
    await db.exec('CREATE TABLE kandev_meta (k TEXT)'); // present to the probe, but without the columns the key read needs
    const store = byDialect(dialect, { sqlite: () => createSqliteStore(db.sqlite!), postgres: () => createPostgresStore(db.pool!) })();
    const health = await store.checkHealth().then(
      () => null,
      (err: unknown) => err,
    );
    expect(health).toBeInstanceOf(HealthCheckError);
    expect(health).toMatchObject({ code: 'database_error' });
    const driver = (health as Error).cause as Error & { code?: unknown };
    expect(driver.code).toBe(byDialect(dialect, { sqlite: 'SQLITE_ERROR', postgres: '42703' }));
    const cli = toCliError(health);
    expect(cli).toMatchObject({ code: 'database_error', exitCode: EXIT.database });
    expect(cli.message).toMatch(
      byDialect(dialect, { sqlite: /^SQLite SQLITE_ERROR: no such column/, postgres: /^PostgreSQL 42703: column .* does not exist/ }),
    );
    expect(cli.cause).toBe(health);
  });
});
