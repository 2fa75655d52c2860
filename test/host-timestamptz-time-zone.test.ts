// A host whose created_at and updated_at are timestamptz, on connections whose TimeZone is not
// UTC (a review, 2026-12-07): the package's columns and keys are TIMESTAMP holding UTC, and the
// conversion followed the session's zone. Under America/New_York a message of 10:00Z was
// backfilled as observed at 06:00, the mark named 07:00Z for 11:00Z, and health compared its UTC
// bound in that zone, so a message the writer missed an hour after activation fell outside its
// window: "nothing since activation", shortfall 0. The backfill's and health's transactions now
// read them in UTC (set_local_time_settings.sql). TimeZone is PostgreSQL's: SQLite's timestamps
// carry their offset in their text (test/migrations-backfill-selection.test.ts reads them so).
import { afterEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore } from '../src/index.js';
import { parseInstant } from '../src/instant.js';
import { steppingClock } from './helpers/clock.js';
import { SECOND } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const at = (iso: string) => steppingClock(parseInstant(iso)!, SECOND);

async function message(db: TestDb, id: string, toolCallId: string, createdAt: string): Promise<void> {
  const metadata = subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: {} });
  await db.query(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at, updated_at) VALUES ($1, 's1', 'task-s1', $2, $3, $3)`,
    [id, metadata, createdAt],
  );
}

describe('a host whose created_at is timestamptz, on connections in another time zone [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it.each([
    ['America/New_York', 'windows'],
    ['America/New_York', 'sessions'],
    ['Asia/Kolkata', 'windows'],
    ['Asia/Kolkata', 'sessions'],
  ] as const)('%s, %s walk: the backfill, its mark and health read the instants as UTC', async (zone, walk) => {
    db = await openTestDb('postgres', 'package');
    await db.exec(`ALTER TABLE task_session_messages ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'UTC',
                                                  ALTER COLUMN updated_at TYPE timestamptz USING updated_at AT TIME ZONE 'UTC'`);
    await insertSession(db, 's1');
    await message(db, 'm0', 'toolu_0', '2026-06-01 10:00:00+00');
    await message(db, 'm1', 'toolu_1', '2026-06-01 11:00:00+00');
    const pool = poolFor({ connectionString: db.location, options: `-c TimeZone=${zone}`, max: 2 });
    try {
      const report = await createPostgresStore(pool, { clock: at('2026-06-15T12:00:00Z') }).runMigrations({ backfillChunk: { walk, pauseMs: 0 } });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      const rows = await db.query(
        `SELECT tool_call_id, observed_at::text AS observed_at, settled_at::text AS settled_at FROM task_session_subagents ORDER BY 1`,
      );
      expect(rows).toEqual([
        { tool_call_id: 'toolu_0', observed_at: '2026-06-01 10:00:00', settled_at: '2026-06-01 10:00:00' },
        { tool_call_id: 'toolu_1', observed_at: '2026-06-01 11:00:00', settled_at: '2026-06-01 11:00:00' },
      ]);
      expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('2026-06-01T11:00:00.000000000Z');
      // A subagent the writer missed an hour after activation (13:00Z), read at 14:00Z.
      await message(db, 'm-missed', 'toolu_missed', '2026-06-15 13:00:00+00');
      const health = await createPostgresStore(pool, { clock: at('2026-06-15T14:00:00Z') }).checkHealth();
      expect([health.shortfall, health.verdict]).toEqual([1, 'shortfall']);
    } finally {
      await pool.end();
    }
  });

  // The report compared its window with a timestamptz created_at in the session's zone: under
  // New York a session active at 10:00Z was outside 09:30Z–10:30Z (a review, 2026-12).
  it.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('%s: the report counts a session active in its window as UTC', async (zone) => {
    db = await openTestDb('postgres', 'package');
    await db.exec(`ALTER TABLE task_session_messages ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'UTC',
                                                  ALTER COLUMN updated_at TYPE timestamptz USING updated_at AT TIME ZONE 'UTC'`);
    await insertSession(db, 's1');
    await db.query(
      `INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at, updated_at) VALUES ('m1', 's1', 'task-s1', '{}', $1, $1)`,
      ['2026-06-01 10:00:00+00'],
    );
    const pool = poolFor({ connectionString: db.location, options: `-c TimeZone=${zone}`, max: 2 });
    try {
      const store = createPostgresStore(pool, { clock: at('2026-06-15T12:00:00Z') });
      expect((await store.runMigrations()).ok).toBe(true);
      const inWindow = await store.report({ since: '2026-06-01T09:30:00Z', until: '2026-06-01T10:30:00Z' });
      const after = await store.report({ since: '2026-06-01T10:30:00Z', until: '2026-06-01T14:30:00Z' });
      expect([inWindow.cards.sessions, after.cards.sessions]).toEqual([1, 0]);
    } finally {
      await pool.end();
    }
  });
});
