// DESIGN §8: the report works on a read-only connection — a better-sqlite3 handle opened
// `readonly`, a PostgreSQL session with default_transaction_read_only — and gives the same
// figures as on the read-write connection.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStore, createSqliteStore } from '../src/index.js';
import { seedReportFixture } from './helpers/report-fixture.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { byDialect } from './helpers/by-dialect.js';

describeBothDialects('report: read-only connections', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seedReportFixture(db);
  });
  afterAll(async () => db.close());

  it('a read-only connection answers the same report, windowed and scoped too', async () => {
    const options = { since: '2026-03-01T12:00:00Z', taskIds: ['T1', 'T2'] };
    const expected = [await db.store().report(), await db.store().report(options)];
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const ro = new Database(db.location, { readonly: true, fileMustExist: true });
      try {
        const store = createSqliteStore(ro);
        expect([await store.report(), await store.report(options)]).toEqual(expected);
        expect(ro.inTransaction).toBe(false); // the snapshot transaction was ended
      } finally {
        ro.close();
      }
    } else {
      const pool = poolFor({ connectionString: db.location, max: 1, options: '-c default_transaction_read_only=on' });
      try {
        expect((await pool.query('SHOW default_transaction_read_only')).rows[0].default_transaction_read_only).toBe('on');
        const store = createPostgresStore(pool);
        expect([await store.report(), await store.report(options)]).toEqual(expected);
      } finally {
        await pool.end();
      }
    }
    expect(expected[0].provenance.rows).toBeGreaterThan(expected[1].provenance.rows);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it("inside the host's open transaction the report reads it and leaves it open", async () => {
      const before = (await db.store().report()).provenance.rows;
      db.sqlite!.exec('BEGIN');
      try {
        db.sqlite!.exec("DELETE FROM task_session_subagents WHERE id = 'r0'");
        expect((await db.store().report()).provenance.rows).toBe(before - 1);
        expect(db.sqlite!.inTransaction).toBe(true);
      } finally {
        db.sqlite!.exec('ROLLBACK');
      }
      expect((await db.store().report()).provenance.rows).toBe(before);
    });
  }
});
