// DESIGN §8 "Read-only connections": a read replica, or a role that may only read. PostgreSQL
// with `default_transaction_read_only = on` (what a hot standby enforces), set on the
// database; SQLite through a better-sqlite3 handle opened `{ readonly: true }`. Creating a
// store there never throws; checkHealth and the lists answer exactly as on the writable
// connection; writes are 'failed' (WARN, counted); runMigrations reports and never rejects.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { clientFor, poolFor } from '../scripts/lib/postgres-database.js';
import type { StoreOptions, SubagentContextStore } from '../src/index.js';
import { createPostgresStore, createSqliteStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';

/** The code a refused write carries: PostgreSQL read_only_sql_transaction, SQLite's read-only handle. */
const READ_ONLY_CODE = { postgres: '25006', sqlite: 'SQLITE_READONLY' } as const;

describeBothDialects('read-only connections', (dialect) => {
  let db: TestDb;
  let closers: (() => Promise<void>)[];
  /** PostgreSQL roles are cluster-wide: dropped once the test database (and its grants) is gone. */
  let roles: string[];
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1', 'task-1');
    await insertMessage(db, {
      id: 'm1',
      sessionId: 's1',
      taskId: 'task-1',
      turnId: 'turn-0',
      metadata: subagentMetadata({ toolCallId: 'history', toolStatus: 'completed', subagent: { subagent_type: 'reviewer', total_tokens: 10 } }),
      createdAt: hostTimestamp(dialect, '2026-01-01 00:00:00.000001'),
    });
    closers = [];
    roles = [];
  });
  afterEach(async () => {
    for (const close of closers) await close();
    await db.close();
    if (roles.length === 0) return;
    const admin = clientFor(new URL('/postgres', db.location).toString());
    await admin.connect();
    for (const role of roles) await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  /** A store on a read-only connection to the same database. */
  const readOnlyStore = async (options: StoreOptions): Promise<SubagentContextStore> => {
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const handle = new Database(db.location, { readonly: true });
      closers.push(async () => void handle.close());
      return createSqliteStore(handle, options);
    }
    const name = new URL(db.location).pathname.slice(1);
    await db.exec(`ALTER DATABASE ${name} SET default_transaction_read_only = on`); // new sessions only
    const pool = poolFor({ connectionString: db.location, max: 2 });
    closers.push(() => pool.end());
    const { rows } = await pool.query<{ default_transaction_read_only: string }>('SHOW default_transaction_read_only');
    expect(rows[0].default_transaction_read_only).toBe('on'); // the setting is really in force
    return createPostgresStore(pool, options);
  };

  it('on a migrated store: health and the lists answer as on the writable connection; writes fail, counted and logged', async () => {
    const writer = db.store({ clock: steppingClock() });
    expect((await writer.runMigrations()).ok).toBe(true);
    expect(await writer.recordFrame(frame({ toolCallId: 'live', toolStatus: 'completed', payload: { total_tokens: 5 } }))).toBe('persisted');
    const expected = { health: await writer.checkHealth(), session: await writer.listBySession('s1'), turn: await writer.listByTurn('s1', 'turn-1') };
    expect(expected.session.map((r) => r.tool_call_id).sort()).toEqual(['history', 'live']);

    const logger = recordingLogger();
    const reader = await readOnlyStore({ clock: steppingClock(), logger });
    expect({ health: await reader.checkHealth(), session: await reader.listBySession('s1'), turn: await reader.listByTurn('s1', 'turn-1') }).toEqual(expected);

    expect(await reader.recordFrame(frame({ toolCallId: 'refused' }))).toBe('failed');
    expect(await reader.recordFrames([frame({ toolCallId: 'refused_a' }), frame({ toolCallId: '' }), frame({ toolCallId: 'refused_b' })])).toEqual([
      'failed',
      'skipped_no_identity',
      'failed',
    ]);
    expect(logger.lines.map((l) => [l.fields.tool_call_id, l.fields.code])).toEqual([
      ['refused', READ_ONLY_CODE[dialect]],
      ['refused_a', READ_ONLY_CODE[dialect]],
      ['refused_b', READ_ONLY_CODE[dialect]],
    ]);
    expect(reader.counters()).toEqual({
      attempted: 4,
      persisted: 0,
      skipped_no_identity: 1,
      anomalous_value: 0,
      failed: 3,
      unknown_execution: 0,
      ledger_failed: 0,
    });
    expect((await writer.listBySession('s1')).length).toBe(2); // nothing was written

    // runMigrations on an installation that is already current needs no write: ok, all skipped.
    const report = await reader.runMigrations();
    expect(report.ok).toBe(true);
    expect(report.steps.every((s) => s.status === 'skipped')).toBe(true);
  });

  it('on an unmigrated database: creating the store does not throw, and runMigrations reports the refused steps instead of rejecting', async () => {
    const logger = recordingLogger();
    const reader = await readOnlyStore({ clock: steppingClock(), logger });
    const report = await reader.runMigrations();
    expect(report.ok).toBe(false);
    const failed = report.steps.filter((s) => s.status === 'failed');
    expect(failed.map((s) => s.name)).toContain('ensure_kandev_meta');
    for (const step of failed) expect(step.error).toContain(READ_ONLY_CODE[dialect]);
    expect(logger.lines.map((l) => l.fields.step)).toEqual(failed.map((s) => s.name));
    // Health says why, as it does on any store that was never migrated.
    await expect(reader.checkHealth()).rejects.toMatchObject({ code: 'missing_tables' });
    expect(await reader.recordFrame(frame())).toBe('failed');
  });

  if (byDialect(dialect, { sqlite: false, postgres: true })) {
    it('the privileges each method needs: SELECT for health and the lists, INSERT and UPDATE on the table for writes', async () => {
      const writer = db.store({ clock: steppingClock() });
      expect((await writer.runMigrations()).ok).toBe(true);
      expect(await writer.recordFrame(frame({ toolCallId: 'live' }))).toBe('persisted');
      const expected = { health: await writer.checkHealth(), session: await writer.listBySession('s1') };

      const suffix = `${process.pid}_${Date.now().toString(36)}`;
      const role = async (name: string, grants: string[]) => {
        const full = `${name}_${suffix}`;
        await db.exec(`CREATE ROLE ${full} LOGIN PASSWORD 'pw'`);
        roles.push(full);
        for (const grant of grants) await db.exec(grant.replace('$ROLE', full));
        const url = new URL(db.location);
        url.username = full;
        url.password = 'pw';
        const pool = poolFor({ connectionString: url.toString(), max: 2 });
        closers.push(() => pool.end());
        return pool;
      };
      const readable = ['task_session_messages', 'kandev_meta', 'task_session_subagents'].map((t) => `GRANT SELECT ON ${t} TO $ROLE`);

      const logger = recordingLogger();
      const reader = createPostgresStore(await role('sc_reader', readable), { clock: steppingClock(), logger });
      expect({ health: await reader.checkHealth(), session: await reader.listBySession('s1') }).toEqual(expected);
      expect(await reader.recordFrame(frame({ toolCallId: 'refused' }))).toBe('failed');
      expect(logger.lines.map((l) => l.fields.code)).toEqual(['42501']); // insufficient_privilege
      const report = await reader.runMigrations(); // already current: lock-free reads only
      expect(report.ok).toBe(true);

      const recorder = createPostgresStore(await role('sc_writer', ['GRANT SELECT, INSERT, UPDATE ON task_session_subagents TO $ROLE']), {
        clock: steppingClock(),
      });
      expect(await recorder.recordFrame(frame({ toolCallId: 'by_writer' }))).toBe('persisted');
      expect(await recorder.recordFrames([frame({ toolCallId: 'by_writer_batch' })])).toEqual(['persisted']);
      expect((await writer.listBySession('s1')).map((r) => r.tool_call_id).sort()).toEqual(['by_writer', 'by_writer_batch', 'history', 'live']);
    });
  }
});
