// A host that defers its foreign keys (a review, 2026-12): SQLite's PRAGMA defer_foreign_keys = ON
// in the host's open transaction let a frame of an unknown session write its row without error,
// so recordFrame() said 'persisted' and the HOST's COMMIT then failed on that row, losing the
// host's own work. The frame must be 'failed' (unknown_session) at once and the host's COMMIT go
// through, with the host's setting still in force after the write, and a violation of the host's
// own deferred keys still failing its COMMIT. PostgreSQL's counterpart,
// SET CONSTRAINTS ALL DEFERRED, leaves the package's key alone (it is not DEFERRABLE): the same
// outcomes there.
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordOptions } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { frame, storedToolCallIds } from './helpers/live-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const CLOCK = 1_790_000_000_000_000_000n;
const HOST_WORK = `UPDATE task_sessions SET state = 'RUNNING' WHERE id = 's1'`;

interface HostTransaction {
  readonly options: RecordOptions;
  exec(sql: string): Promise<void>;
  /** The COMMIT's error, or null when it committed. */
  commit(): Promise<string | null>;
}

/** BEGIN on the host's connection, foreign keys deferred as the dialect lets a host defer them. */
async function beginDeferred(db: TestDb): Promise<HostTransaction> {
  if (db.sqlite) {
    const conn = db.sqlite;
    conn.exec('BEGIN');
    conn.pragma('defer_foreign_keys = ON');
    return {
      options: { client: conn },
      exec: async (sql) => void conn.exec(sql),
      commit: async () => {
        try {
          conn.exec('COMMIT');
          return null;
        } catch (err) {
          conn.exec('ROLLBACK');
          return String(err);
        }
      },
    };
  }
  const client: pg.PoolClient = await db.pool!.connect();
  await client.query('BEGIN');
  await client.query('SET CONSTRAINTS ALL DEFERRED');
  return {
    options: { client },
    exec: async (sql) => void (await client.query(sql)),
    commit: async () => {
      try {
        await client.query('COMMIT');
        return null;
      } catch (err) {
        await client.query('ROLLBACK');
        return String(err);
      } finally {
        client.release();
      }
    },
  };
}

const hostState = async (db: TestDb) => (await db.query<{ state: string }>(`SELECT state FROM task_sessions WHERE id = 's1'`))[0].state;

describeBothDialects('host transactions with deferred foreign keys', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => {
    await db.close();
  });

  it("recordFrame: an unknown session is 'failed' (unknown_session) and the host's COMMIT keeps its own work", async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(CLOCK), logger });
    const host = await beginDeferred(db);
    await host.exec(HOST_WORK);
    expect(await store.recordFrame(frame({ sessionId: 'not-saved', toolCallId: 'toolu_orphan' }), host.options)).toBe('failed');
    expect(await store.recordFrame(frame({ toolCallId: 'toolu_ok' }), host.options)).toBe('persisted');
    // The host's own setting is still in force for the rest of its transaction.
    if (db.sqlite) expect(db.sqlite.pragma('defer_foreign_keys', { simple: true })).toBe(1);
    expect(await host.commit()).toBeNull();
    expect(await hostState(db)).toBe('RUNNING');
    expect(await storedToolCallIds(db)).toEqual(['toolu_ok']);
    expect(logger.lines.map((l) => l.fields.code)).toEqual(['unknown_session']);
  });

  it("recordFrames: only the unknown session's frame fails; the others and the host's work commit", async () => {
    const store = db.store({ clock: steppingClock(CLOCK), logger: recordingLogger() });
    const host = await beginDeferred(db);
    await host.exec(HOST_WORK);
    const outcomes = await store.recordFrames(
      [frame({ toolCallId: 'toolu_a' }), frame({ sessionId: 'not-saved', toolCallId: 'toolu_orphan' }), frame({ toolCallId: 'toolu_b' })],
      host.options,
    );
    expect(outcomes).toEqual(['persisted', 'failed', 'persisted']);
    expect(await host.commit()).toBeNull();
    expect(await hostState(db)).toBe('RUNNING');
    expect(await storedToolCallIds(db)).toEqual(['toolu_a', 'toolu_b']);
  });

  // A host trigger that saves the session as the row is written: SQLite tests the key at the
  // statement's end, after it, and so must the package (a check made before the row failed the
  // frame: a second review, 2026-12).
  it.each(['recordFrame', 'recordFrames'] as const)('%s: a BEFORE INSERT trigger of the host that inserts the session: persisted', async (call) => {
    await db.exec(
      byDialect(dialect, {
        sqlite: `CREATE TRIGGER host_autosession BEFORE INSERT ON task_session_subagents BEGIN
                   INSERT OR IGNORE INTO task_sessions (id, task_id, state, created_at, updated_at)
                   VALUES (NEW.task_session_id, NEW.task_id, 'CREATED', '2026-01-01 00:00:00', '2026-01-01 00:00:00'); END`,
        postgres: `CREATE FUNCTION host_autosession() RETURNS trigger LANGUAGE plpgsql AS $$
                     BEGIN INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
                           VALUES (NEW.task_session_id, NEW.task_id, 'CREATED', '2026-01-01', '2026-01-01') ON CONFLICT DO NOTHING;
                           RETURN NEW; END $$;
                   CREATE TRIGGER host_autosession BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION host_autosession()`,
      }),
    );
    const store = db.store({ clock: steppingClock(CLOCK), logger: recordingLogger() });
    const host = await beginDeferred(db);
    const auto = frame({ sessionId: 'auto', toolCallId: 'toolu_auto' });
    const written =
      call === 'recordFrame'
        ? [await store.recordFrame(auto, host.options)]
        : await store.recordFrames([frame({ toolCallId: 'toolu_ok' }), auto], host.options);
    expect(written.every((w) => w === 'persisted')).toBe(true);
    expect(await host.commit()).toBeNull();
    expect(await storedToolCallIds(db)).toEqual(call === 'recordFrame' ? ['toolu_auto'] : ['toolu_auto', 'toolu_ok']);
  });

  // The first fix switched SQLite's pragma off around the write, which zeroed SQLite's count of
  // the host's own deferred violations: the host then committed an orphan row of its own (a
  // second review, 2026-12). The host's key is the host's to enforce, at its COMMIT.
  it.each(['recordFrame', 'recordFrames'] as const)("%s: the host's own deferred violation still fails the host's COMMIT", async (call) => {
    await db.exec('CREATE TABLE host_child (sid TEXT REFERENCES task_sessions(id) DEFERRABLE INITIALLY IMMEDIATE)');
    const store = db.store({ clock: steppingClock(CLOCK), logger: recordingLogger() });
    const host = await beginDeferred(db);
    await host.exec(`INSERT INTO host_child (sid) VALUES ('ghost')`);
    const written =
      call === 'recordFrame'
        ? [await store.recordFrame(frame({ toolCallId: 'toolu_ok' }), host.options)]
        : await store.recordFrames([frame({ toolCallId: 'toolu_ok' }), frame({ sessionId: 'not-saved', toolCallId: 'toolu_orphan' })], host.options);
    expect(written[0]).toBe('persisted');
    expect(await host.commit()).toMatch(/foreign key/i);
    expect(await db.query('SELECT sid FROM host_child')).toEqual([]);
    expect(await storedToolCallIds(db)).toEqual([]); // rolled back with the host's transaction
  });
});

describe('deferred foreign keys outside a transaction [sqlite]', () => {
  it("recordFrames after PRAGMA defer_foreign_keys = ON in autocommit (it lasts until a commit): only the unknown session's frame fails", async () => {
    const db = await openTestDb('sqlite', 'package');
    try {
      await insertSession(db, 's1', 'task-1');
      db.sqlite!.pragma('defer_foreign_keys = ON');
      const store = db.store({ clock: steppingClock(CLOCK), logger: recordingLogger() });
      const outcomes = await store.recordFrames([frame({ toolCallId: 'toolu_a' }), frame({ sessionId: 'not-saved', toolCallId: 'toolu_orphan' })]);
      expect(outcomes).toEqual(['persisted', 'failed']);
      expect(await storedToolCallIds(db)).toEqual(['toolu_a']);
      expect(db.sqlite!.inTransaction).toBe(false);
    } finally {
      await db.close();
    }
  });
});
