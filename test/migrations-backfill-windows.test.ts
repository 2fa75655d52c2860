// Issue 32 item 5: PostgreSQL's backfill walks windows of the host's created_at
// (src/migrations/backfill-windows.ts). The property test (migrations-backfill-chunked), the
// order, resume, concurrency, restart and partition tests run it beside the session walk; these
// cases are the window walk's own edges, each against the single statement on the same store:
//   - created_at values at the type's ends ('infinity', '-infinity', 4000 BC, before 1970);
//   - a timestamptz column, each window under another session TimeZone: the edges go back and
//     forth as the column's own text, exact to the microsecond;
//   - no index on created_at: the sessions are walked, as before 0.3;
//   - a session walk an earlier version left under way: it goes on by session;
//   - an instant the connection's statement_timeout cannot cover: the walk falls back to sessions.
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore, type BackfillProgress } from '../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

/** Sessions s0…s3, each with tool calls t1…t3 reported at the given instants (in turn), two of them at once. */
async function seedAt(db: TestDb, instants: readonly string[]): Promise<void> {
  for (let s = 0; s < 4; s++) {
    await insertSession(db, `s${s}`);
    for (const [i, at] of instants.entries()) {
      const toolCallId = `toolu_${1 + ((s + i) % 3)}`;
      const metadata = subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { description: `${at} #${i}`, total_tokens: 1 + i } });
      await insertMessage(db, { id: `s${s}-m${i}`, sessionId: `s${s}`, metadata, createdAt: at });
      // A tie: the same tool call at the same instant, decided by the greater id (AC-21b).
      if (i % 3 === 0) await insertMessage(db, { id: `s${s}-m${i}-tie`, sessionId: `s${s}`, metadata, createdAt: at });
    }
  }
}

/** Runs the backfill on `pool`'s connections and returns its progress reports. */
async function migrate(pool: pg.Pool, backfillChunk: object): Promise<BackfillProgress[]> {
  const progress: BackfillProgress[] = [];
  const report = await createPostgresStore(pool).runMigrations({
    backfillChunk: { pauseMs: 0, ...backfillChunk },
    onBackfillProgress: (p) => progress.push(p),
  });
  expect(report.ok, JSON.stringify(report.steps)).toBe(true);
  return progress;
}

async function expectSingleStatement(db: TestDb, single: Awaited<ReturnType<typeof singleStatementRows>>): Promise<void> {
  expect(await backfilledRows(db)).toEqual(single.rows);
  const keys = await metaKeys(db);
  expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
  expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
}

const EVERYDAY = ['2026-08-01 10:00:03', '2026-08-01 10:00:02.0005', '2026-08-01 10:00:01', '2026-08-01 10:00:00.0005'];

describe('runMigrations: the window walk at its edges (issue 32 item 5) [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it("created_at at the type's ends: 'infinity', '-infinity', 4000 BC and before 1970, in windows of 1 µs and of 100 years", async () => {
    for (const maxWindowMs of [0.001, undefined]) {
      db = await openTestDb('postgres', 'package');
      await seedAt(db, ['infinity', ...EVERYDAY, '1969-12-31 23:59:59.999999', '4000-01-01 00:00:00 BC', '-infinity']);
      const single = await singleStatementRows(db);
      expect(single.rows.length).toBe(12);
      const progress = await migrate(db.pool!, { maxWindowMs });
      expect(progress.every((p) => p.phase === 'windows')).toBe(true);
      // One window per instant at 1 µs. At 100 years: 'infinity' is a window of its own (no width
      // reaches below it), then 10:00:03 down to 1969, 4000 BC, and '-infinity'.
      expect(progress.length).toBe(maxWindowMs ? 8 : 4);
      expect(progress.at(-1)?.messagesScanned).toBe(44); // 8 instants and 3 ties in each of 4 sessions
      await expectSingleStatement(db, single);
      await db.close();
      db = undefined;
    }
  });

  it('a timestamptz column, each window under another session TimeZone (UTC+05:45, UTC−03:30): windows end exactly on an instant, none read twice or skipped', async () => {
    db = await openTestDb('postgres', 'package');
    await db.exec(`ALTER TABLE task_session_messages ALTER COLUMN created_at TYPE timestamptz USING created_at AT TIME ZONE 'UTC'`);
    await seedAt(
      db,
      EVERYDAY.map((at) => `${at}+00`),
    );
    const single = await singleStatementRows(db);
    // One connection, its TimeZone changed between windows: each window's edges are read under
    // one zone and used under the other, as a resumed run on another host's connection would.
    const zones = ['Asia/Kathmandu', 'America/St_Johns'];
    const pool = poolFor({ connectionString: db.location, max: 1, options: `-c TimeZone=${zones[0]}` });
    try {
      const progress: BackfillProgress[] = [];
      const report = await createPostgresStore(pool).runMigrations({
        // Windows of 999.5 ms, each reaching down exactly to an instant, its inclusive edge:
        // 10:00:03 down to 10:00:02.0005, then 10:00:01 down to 10:00:00.0005.
        backfillChunk: { maxWindowMs: 999.5, pauseMs: 0 },
        onBackfillProgress: (p) => {
          progress.push(p);
          void pool.query(`SET TimeZone = '${zones[p.chunks % 2]}'`); // queued before the next window's transaction
        },
      });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(progress.map((p) => p.messagesScanned)).toEqual([12, 24]); // 3 messages a session in each
      // The winners and what they carry (the timestamps are written in each window's own zone).
      const carried = (rows: Record<string, unknown>[]) => rows.map((r) => [r.task_session_id, r.tool_call_id, r.description, r.total_tokens]);
      expect(carried(await backfilledRows(db))).toEqual(carried(single.rows));
      // (backfill_through's text assumes a timestamp column holding UTC, DESIGN §4: not checked here.)
      expect(Object.keys(await metaKeys(db)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    } finally {
      await pool.end();
    }
  });

  it('no index on created_at: the sessions are walked, with the same rows', async () => {
    db = await openTestDb('postgres', 'package');
    await seedAt(db, EVERYDAY);
    const indexes = await db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'task_session_messages' AND indexdef LIKE '%(created_at)%'`,
    );
    expect(indexes.map((i) => i.indexname)).toEqual(['idx_messages_created_at']);
    await db.exec('DROP INDEX idx_messages_created_at');
    const single = await singleStatementRows(db);
    const progress = await migrate(db.pool!, { maxSessions: 1 });
    expect(progress.map((p) => [p.phase, p.sessions])).toEqual([
      ['sessions', 1],
      ['sessions', 2],
      ['sessions', 3],
      ['sessions', 4],
      ['sessions', 4],
    ]);
    await expectSingleStatement(db, single);
  });

  it('a session walk that an earlier version left under way goes on by session from its cursor', async () => {
    db = await openTestDb('postgres', 'package');
    await seedAt(db, EVERYDAY);
    const single = await singleStatementRows(db);
    // 0.2's footprint mid-walk: its mark and its cursor past s0 and s1, whose rows it wrote.
    await db.exec(
      `INSERT INTO kandev_meta (key, value) VALUES ('${BACKFILL_PROGRESS_KEYS.through}', '${single.through}'), ('${BACKFILL_PROGRESS_KEYS.cursor}', 's1')`,
    );
    const written = single.rows.filter((r) => r.task_session_id === 's0' || r.task_session_id === 's1');
    const progress = await migrate(db.pool!, { maxSessions: 1 });
    expect(progress.map((p) => [p.phase, p.sessions])).toEqual([
      ['sessions', 1],
      ['sessions', 2],
      ['sessions', 2],
    ]);
    // s2 and s3 by this run; s0 and s1 not walked again (their rows are what 0.2 would have written, none here).
    const rows = await backfilledRows(db);
    expect(rows).toEqual(single.rows.filter((r) => !written.includes(r)));
  });

  it("an instant the connection's statement_timeout cannot cover: every window is cancelled down to that instant, then the sessions are walked", async () => {
    db = await openTestDb('postgres', 'package');
    // Every message at one instant, and every window statement that writes rows sleeps past the
    // limit (a trigger only the window walk's statement meets: its rows come from one window).
    await seedAt(db, ['2026-08-01 10:00:00']);
    const single = await singleStatementRows(db);
    await db.exec(`CREATE FUNCTION slow_window() RETURNS trigger LANGUAGE plpgsql AS $f$
                     BEGIN IF current_setting('enable_indexscan') = 'off' THEN PERFORM pg_sleep(1); END IF; RETURN NULL; END $f$;
                   CREATE TRIGGER slow_window AFTER INSERT ON task_session_subagents FOR EACH STATEMENT EXECUTE FUNCTION slow_window();`);
    // The host's limit on its connections (a role's ALTER ROLE … SET reads the same way).
    const pool = poolFor({ connectionString: db.location, max: 2, options: '-c statement_timeout=300' });
    try {
      const progress = await migrate(pool, {});
      expect(progress.map((p) => p.phase)).toEqual(['sessions']);
      await expectSingleStatement(db, single);
    } finally {
      await pool.end();
    }
  });
});
