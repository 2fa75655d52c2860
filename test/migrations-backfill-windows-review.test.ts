// Issue 32 item 5: what an adversarial review of PostgreSQL's window walk
// (src/migrations/backfill-windows.ts) found, each case failing before its fix:
//   - a host deleting a task of two sessions while a window writes deadlocked with it (40P01):
//     the window locked its sessions row by row while writing, so it held early sessions while
//     it waited for later ones. Now every lock is taken in one pass before the first row;
//   - windows are sized in time, so one reaching from a sparse stretch into a dense one held
//     402,000 messages (8.9 s against a 500 ms target); one message at 'infinity' made the next
//     window 100 years wide. Now each window's statement has its own time limit, and the window
//     after an infinite instant is counted as the first is;
//   - a created_at in year 290000 (valid) overflowed an interval and failed every run; a window
//     ending on the least timestamp, with '-infinity' below it, failed on its lower edge.
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type BackfillProgress, type MigrationReport } from '../src/index.js';
import { FIRST_WINDOW_MESSAGES } from '../src/migrations/backfill-windows.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

async function migrate(pool: pg.Pool, backfillChunk: object = {}): Promise<{ report: MigrationReport; progress: BackfillProgress[] }> {
  const progress: BackfillProgress[] = [];
  const report = await createPostgresStore(pool).runMigrations({
    backfillChunk: { pauseMs: 0, ...backfillChunk },
    onBackfillProgress: (p) => progress.push(p),
  });
  return { report, progress };
}

/** `n` messages in sessions b0…b49, evenly from `from` over `spanSeconds`, one in `every` a subagent's. */
async function bulk(db: TestDb, prefix: string, n: number, from: string, spanSeconds: number, every = 2): Promise<void> {
  await db.exec(`INSERT INTO task_sessions (id, task_id, created_at, updated_at)
                 SELECT 'b' || g, 'task-b' || g, now(), now() FROM generate_series(0, 49) g ON CONFLICT DO NOTHING`);
  await db.exec(`INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
                 SELECT '${prefix}' || g, 'b' || (g % 50), 'task-b' || (g % 50), 'agent', '', 'tool_call',
                        CASE WHEN g % ${every} = 0 THEN '{"tool_call_id":"t${prefix}' || g || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"description":"x"}}}'
                             ELSE '{"tool_call_id":"t${prefix}' || g || '","normalized":{"kind":"read"}}' END,
                        timestamp '${from}' + (g::float8 * ${spanSeconds} / ${n}) * interval '1 second'
                   FROM generate_series(1, ${n}) g`);
  await db.exec('ANALYZE task_session_messages');
}

/** Messages read per window. */
const perWindow = (progress: BackfillProgress[]) => progress.map((p, i) => p.messagesScanned - (i ? progress[i - 1].messagesScanned : 0));

describe('runMigrations: the window walk against what a review found (issue 32 item 5) [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('a created_at in year 290000: no error, the single statement’s rows', async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's0');
    for (const [i, at] of ['2026-08-01 10:00:00', '290000-01-01 00:00:00'].entries())
      for (let k = 0; k < 3; k++) {
        const metadata = subagentMetadata({ toolCallId: `t${i}-${k}`, toolStatus: 'completed', subagent: { description: at } });
        await insertMessage(db, { id: `m${i}-${k}`, sessionId: 's0', metadata, createdAt: at });
      }
    const single = await singleStatementRows(db);
    // The year-290000 messages get no row (no instant the package can hold, as on SQLite:
    // test/migrations-backfill-instant-range.test.ts), but the windows still walk over them.
    expect(single.rows).toHaveLength(3);
    for (const maxWindowMs of [0.001, undefined]) {
      const { report, progress } = await migrate(db.pool!, { maxWindowMs });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(progress.every((p) => p.phase === 'windows')).toBe(true);
      expect(await backfilledRows(db)).toEqual(single.rows);
      await db.exec(
        `DELETE FROM task_session_subagents; DELETE FROM kandev_meta WHERE key LIKE 'subagent_context_%' AND key <> 'subagent_context_record_execution_since'`,
      );
    }
  });

  it('the first window ending exactly on the least timestamp, with -infinity below it: the next window is -infinity', async () => {
    db = await openTestDb('postgres', 'package');
    await bulk(db, 'x', FIRST_WINDOW_MESSAGES, '4714-11-24 00:00:00 BC', 0); // the newest 10,000: all at the least value
    await db.exec(`INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
                   VALUES ('ninf', 'b0', 'task-b0', 'agent', '', 'tool_call', '{"tool_call_id":"ninf","normalized":{"kind":"subagent_task","subagent_task":{}}}', '-infinity')`);
    const single = await singleStatementRows(db);
    const { report, progress } = await migrate(db.pool!);
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(perWindow(progress)).toEqual([FIRST_WINDOW_MESSAGES, 1]);
    expect(await backfilledRows(db)).toEqual(single.rows);
  }, 60_000);

  it("one message at 'infinity', then 60,000 over an hour: the window after the infinite instant is counted, not 100 years wide", async () => {
    db = await openTestDb('postgres', 'package');
    await bulk(db, 'x', 60_000, '2026-08-01 00:00:00', 3600);
    await db.exec(`INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
                   VALUES ('inf', 'b0', 'task-b0', 'agent', '', 'tool_call', '{}', 'infinity')`);
    const { report, progress } = await migrate(db.pool!);
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(perWindow(progress).slice(0, 2)).toEqual([1, FIRST_WINDOW_MESSAGES]);
    expect(progress.at(-1)?.messagesScanned).toBe(60_001);
  }, 120_000);

  it('a sparse stretch after a dense one: the window that reaches into the dense one is cancelled at its time limit and retried narrower', async () => {
    db = await openTestDb('postgres', 'package');
    // Dense: 6,000 messages over 10 days, every other one a subagent's; then sparse: 12,000 over
    // the next 30 days, one in 50 a subagent's. Each row from the dense stretch costs 0.5 ms more
    // to write (a trigger), as a dense host's would: a window's cost follows its dense rows.
    await bulk(db, 'd', 6_000, '2026-06-01 00:00:00', 10 * 86400);
    await bulk(db, 's', 12_000, '2026-06-11 00:00:00', 30 * 86400, 50);
    await db.exec(`CREATE FUNCTION dense_cost() RETURNS trigger LANGUAGE plpgsql AS $f$
                     BEGIN PERFORM pg_sleep(0.0005 * (SELECT count(*) FROM inserted WHERE tool_call_id LIKE 'td%')); RETURN NULL; END $f$;
                   CREATE TRIGGER dense_cost AFTER INSERT ON task_session_subagents REFERENCING NEW TABLE AS inserted
                     FOR EACH STATEMENT EXECUTE FUNCTION dense_cost();`);
    // A 200 ms target: each window's statement is cancelled past 800 ms. The first window (the
    // newest 10,000 messages, all sparse) is quick, so the next is four times as wide and reaches
    // over the whole dense stretch (3,000 rows, 1.5 s): cancelled, then narrower.
    const { report, progress } = await migrate(db.pool!, { targetMs: 200 });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_session_subagents`);
    expect(rows[0].n).toBe(3_240);
    expect(progress.at(-1)?.messagesScanned).toBe(18_000);
    expect(perWindow(progress)[0]).toBe(FIRST_WINDOW_MESSAGES);
    // Without the limit the second window held the rest of the store (8,000 messages).
    expect(Math.max(...perWindow(progress).slice(1))).toBeLessThan(6_000);
  }, 120_000);

  it('a large target, a role limit below four times the target, and a host holding a session: the window walk completes, under the role’s limit, without falling back', async () => {
    db = await openTestDb('postgres', 'package');
    await bulk(db, 'x', 2_000, '2026-08-01 00:00:00', 3600);
    // What each window's INSERT runs under, as a trigger sees it.
    await db.exec(`CREATE TABLE seen_limits (ms text);
                   CREATE FUNCTION note_limit() RETURNS trigger LANGUAGE plpgsql AS $f$
                     BEGIN INSERT INTO seen_limits VALUES (current_setting('statement_timeout')); RETURN NULL; END $f$;
                   CREATE TRIGGER note_limit AFTER INSERT ON task_session_subagents FOR EACH STATEMENT EXECUTE FUNCTION note_limit();`);
    const reset = () =>
      db!.exec(
        `DELETE FROM task_session_subagents; DELETE FROM seen_limits; DELETE FROM kandev_meta WHERE key LIKE 'subagent_context_%' AND key <> 'subagent_context_record_execution_since'`,
      );
    // A target of 10^9 ms: its limit is PostgreSQL's largest (4,000,000,000 ms failed every boot).
    const large = await migrate(db.pool!, { targetMs: 1e9 });
    expect(large.report.ok, JSON.stringify(large.report.steps)).toBe(true);
    expect((await db.query<{ ms: string }>('SELECT DISTINCT ms FROM seen_limits')).map((r) => r.ms)).toEqual(['2147483647ms']);
    await reset();
    // A connection limit of 1 s and a target of 2 s: the windows run under 1 s, not 8 s.
    const limited = poolFor({ connectionString: db.location, max: 1, options: '-c statement_timeout=1000' });
    try {
      const run = await migrate(limited, { targetMs: 2_000 });
      expect(run.report.ok, JSON.stringify(run.report.steps)).toBe(true);
      expect((await db.query<{ ms: string }>('SELECT DISTINCT ms FROM seen_limits')).map((r) => r.ms)).toEqual(['1s']);
    } finally {
      await limited.end();
    }
    await reset();
    // A host holds the newest message's session for 4 s: the windows' own 400 ms limit cancels the
    // window eight times, down to the newest message alone (3.2 s), which then waits without the
    // package's limit instead of sending the walk to the sessions (a review: it did).
    const host = poolFor({ connectionString: db.location, max: 1 });
    try {
      const client = await host.connect();
      await client.query(`BEGIN; SELECT id FROM task_sessions WHERE id = 'b0' FOR UPDATE`);
      const released = new Promise<void>((resolve) => setTimeout(() => void client.query('COMMIT').then(() => (client.release(), resolve())), 4_000));
      const run = await migrate(db.pool!, { targetMs: 100 });
      await released;
      expect(run.report.ok, JSON.stringify(run.report.steps)).toBe(true);
      expect(run.progress.map((p) => p.phase)).not.toContain('sessions');
      expect(run.progress.at(-1)?.messagesScanned).toBe(2_000);
    } finally {
      await host.end();
    }
  }, 120_000);

  for (const walk of ['windows', 'sessions'] as const) {
    it(`a host deleting a task of two sessions while the backfill writes one of them (${walk}): the delete waits, no deadlock`, async () => {
      db = await openTestDb('postgres', 'package');
      // 300 tasks, each with two sessions: z… first on disk (a delete by task_id meets it first), then a….
      await db.exec(`INSERT INTO task_sessions (id, task_id, created_at, updated_at)
                     SELECT p || lpad(g::text, 4, '0'), 'task-' || g, now(), now()
                       FROM generate_series(0, 299) g, (VALUES ('z', 1), ('a', 2)) AS v(p, o) ORDER BY g, o`);
      await db.exec(`INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
                     SELECT s.id || '-' || k, s.id, s.task_id, 'agent', '', 'tool_call',
                            '{"tool_call_id":"t' || k || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"description":"x"}}}',
                            timestamp '2026-08-01 10:00:00' + (k * 300 + row_number() OVER ()) * interval '1 millisecond'
                       FROM task_sessions s, generate_series(1, 10) k`);
      // The backfill pauses while it writes a0150's row: by then the window walk had locked a0000…a0150, and wanted z….
      await db.exec(`CREATE FUNCTION pause_at_a0150() RETURNS trigger LANGUAGE plpgsql AS $f$
                       BEGIN IF NEW.task_session_id = 'a0150' AND NEW.tool_call_id = 't1' THEN PERFORM pg_sleep(0.6); END IF; RETURN NEW; END $f$;
                     CREATE TRIGGER pause_at_a0150 BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION pause_at_a0150();`);
      const host = poolFor({ connectionString: db.location, max: 1 });
      let hostError: unknown;
      const deleter = (async () => {
        // This database's sleep only: the suite's other files share the server, and a pg_sleep of
        // theirs started the delete during the window's lock pass, which a delete out of key order
        // can meet by design (docs/migrations.md, "Sessions": one of the two is cancelled, 40P01).
        for (let i = 0; i < 1_000; i++) {
          const { rows } = await host.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()`);
          if (rows[0].n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await host.query(`DELETE FROM task_sessions WHERE task_id = 'task-150'`).catch((err: unknown) => (hostError = err));
      })();
      try {
        const { report } = await migrate(db.pool!, { walk, maxSessions: 64 });
        await deleter;
        expect(hostError).toBeUndefined();
        expect(report.ok, JSON.stringify(report.steps)).toBe(true);
        const left = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM task_sessions WHERE task_id = 'task-150'`);
        expect(left[0].n).toBe(0);
      } finally {
        await host.end();
      }
    }, 120_000);
  }
});
