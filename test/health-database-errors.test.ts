// checkHealth() rejects only with a HealthCheckError: a failure in the driver — a statement
// the database cannot run, a database it cannot reach or lock — becomes `database_error`
// with the driver's own error on `cause`, its SQLSTATE or SQLite result code intact. Every
// failure here is a real one (a host table missing a column the statements read, a database
// that does not exist, a file another connection holds an exclusive lock on); no mocks.
import Database from 'better-sqlite3';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPostgresStore, createSqliteStore, HealthCheckError, SubagentContextError } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { insertSession } from './helpers/seed-host-rows.js';

const CAPTURE = formatKeyInstant(1_785_000_000_000_000_000n);

/** The rejection of checkHealth(), which must reject. */
async function rejection(check: Promise<unknown>): Promise<unknown> {
  return check.then(
    (report) => {
      throw new Error(`checkHealth() resolved: ${JSON.stringify(report)}`);
    },
    (err: unknown) => err,
  );
}

function expectDatabaseError(err: unknown, driverCode: string): Error {
  expect(err).toBeInstanceOf(HealthCheckError);
  expect(err).toBeInstanceOf(SubagentContextError);
  expect(err).toMatchObject({ name: 'HealthCheckError', code: 'database_error' });
  const cause = (err as Error).cause;
  expect(cause).toBeInstanceOf(Error);
  expect(cause).not.toBeInstanceOf(SubagentContextError);
  expect((cause as { code?: unknown }).code).toBe(driverCode);
  expect((err as Error).message).toContain((cause as Error).message);
  return cause as Error;
}

describeBothDialects('health: driver failures', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    await setKeys(db, { [KEY.captureSince]: CAPTURE, [KEY.executionSince]: CAPTURE });
  });
  afterEach(async () => db.close());

  it('a statement the database cannot run mid-check: database_error with the driver error on cause', async () => {
    // Every table is there (the probe passes) and the keys read fine; the shortfall statement
    // then reads a column this host table no longer has.
    await db.exec('ALTER TABLE task_session_messages RENAME COLUMN metadata TO metadata_elsewhere');
    const err = await rejection(db.store().checkHealth());
    const cause = expectDatabaseError(err, byDialect(dialect, { sqlite: 'SQLITE_ERROR', postgres: '42703' }));
    expect(cause.message).toMatch(/metadata/);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('a file another connection holds an exclusive lock on: database_error, SQLITE_BUSY on cause', async () => {
      db.sqlite!.pragma('journal_mode = DELETE'); // in WAL mode readers are never blocked
      const locker = new Database(db.location);
      const reader = new Database(db.location, { timeout: 0 });
      try {
        locker.exec('BEGIN EXCLUSIVE');
        const err = await rejection(createSqliteStore(reader).checkHealth());
        expectDatabaseError(err, 'SQLITE_BUSY');
        locker.exec('COMMIT');
        // The same store answers once the lock is gone: the error described a state, not the store.
        await expect(createSqliteStore(reader).checkHealth()).resolves.toMatchObject({ state: 'activated' });
      } finally {
        if (locker.inTransaction) locker.exec('ROLLBACK');
        locker.close();
        reader.close();
      }
    });
  } else {
    it('a database that does not exist: database_error, SQLSTATE 3D000 on cause', async () => {
      const url = new URL(db.location);
      url.pathname = '/no_such_database_for_health';
      const pool = poolFor({ connectionString: url.toString(), max: 1 });
      try {
        const err = await rejection(createPostgresStore(pool).checkHealth());
        expectDatabaseError(err, '3D000');
      } finally {
        await pool.end();
      }
    });
  }
});
