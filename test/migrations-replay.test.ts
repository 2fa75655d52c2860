// Replay (issue 6's "< 20 ms, no scan" and AC-34): on an installation that is already
// current, runMigrations() answers from a few lock-free reads — every step skipped as
// "already current" — so it completes even while another migrator holds the migration lock.
// Anything short of current (one key missing) takes the full, locked pass.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { clientFor } from '../scripts/lib/postgres-database.js';
import Database from 'better-sqlite3';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';

const MIGRATION_LOCK = '2673864975278095574'; // queries/postgres/acquire_migration_lock.sql

describeBothDialects('replay on a current installation', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1', 'task-1');
    await insertMessage(db, {
      id: 'm1',
      sessionId: 's1',
      metadata: subagentMetadata({ toolCallId: 'toolu_1', subagent: { status: 'async_launched' } }),
      createdAt: hostTimestamp(db, 1_785_000_000_000_000_000n),
    });
    expect((await db.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
  });
  afterEach(async () => db.close());

  /** Holds the migration lock from another connection while `fn` runs. */
  async function whileLockIsHeld<T>(fn: () => Promise<T>): Promise<T> {
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      const other = clientFor(db.location);
      await other.connect();
      await other.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      try {
        return await fn();
      } finally {
        await other.end();
      }
    }
    const other = new Database(db.location, { timeout: 100 });
    other.exec('BEGIN IMMEDIATE');
    try {
      return await fn();
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  }

  it('skips every step as already current without taking the migration lock', async () => {
    const before = await db.query('SELECT key, value FROM kandev_meta ORDER BY key');
    const report = await whileLockIsHeld(() => db.store({ clock: steppingClock() }).runMigrations());
    expect(report.ok).toBe(true);
    expect(report.steps.length).toBeGreaterThanOrEqual(6);
    expect(report.steps.every((s) => s.status === 'skipped' && /already current/.test(s.detail ?? ''))).toBe(true);
    // a script checking `steps.some((s) => s.error)` must not alarm on a no-op boot (issue 17)
    expect(report.steps.some((s) => s.error !== undefined)).toBe(false);
    expect(await db.query('SELECT key, value FROM kandev_meta ORDER BY key')).toEqual(before);
  });

  it('runs the full pass when one activation key is missing, and repairs it', async () => {
    await db.query('DELETE FROM kandev_meta WHERE key = $1', [ACTIVATION_KEYS.executionSince]);
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    expect(report.steps.find((s) => s.name === 'record_execution_since')?.status).toBe('applied');
    expect(report.steps.some((s) => /already current/.test(s.detail ?? ''))).toBe(false);
  });
});
