// PostgreSQL's window walk keeps the next window's top in kandev_meta as text, and passes each
// window's edges back to the server as text. A timestamp's text followed the session's DateStyle
// (a review, 2026-12-07): a run under 'SQL, DMY' (a role's setting, a pool's `options`) kept
// '05/12/2024 …', which the next run under the default 'ISO, MDY' read as 12 May, so it skipped
// the windows between and activated without their rows; '28/12/2024 …' failed every boot
// (22008). The walk now pins DateStyle to ISO in its transactions (set_local_time_settings.sql).
// DateStyle is PostgreSQL's: SQLite keeps the host's own text, which no setting changes.
import { afterEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore } from '../src/index.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

/** One subagent message a day at noon, from 2024-11-20 to 2024-12-`lastDay`, each in a session of its own. */
async function seed(db: TestDb, lastDay: number): Promise<void> {
  const end = Date.UTC(2024, 11, lastDay, 12);
  for (let t = Date.UTC(2024, 10, 20, 12), i = 0; t <= end; t += 86_400_000, i++) {
    const session = `s${String(i).padStart(3, '0')}`;
    await insertSession(db, session);
    await insertSubagentMessage(db, {
      id: `m${i}`,
      sessionId: session,
      toolCallId: 'toolu_1',
      createdAt: new Date(t).toISOString().slice(0, 23).replace('T', ' '),
    });
  }
}

const DAY_WINDOWS = { maxWindowMs: 86_400_000, pauseMs: 0 };

describe('runMigrations: the window walk under another DateStyle [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it.each([6, 29])(
    'a run under DateStyle SQL, DMY stopped after its first window, resumed under ISO, MDY, writes the single statement’s rows (newest message 2024-12-%i)',
    async (lastDay) => {
      db = await openTestDb('postgres', 'package');
      await seed(db, lastDay);
      const single = await singleStatementRows(db);
      expect(single.rows).toHaveLength(17 + lastDay - 6);

      const dmy = poolFor({ connectionString: db.location, options: '-c DateStyle=SQL,DMY', max: 2 });
      // The process stops between windows (its pool ended by the first window's progress).
      const first = await createPostgresStore(dmy).runMigrations({ backfillChunk: DAY_WINDOWS, onBackfillProgress: () => void dmy.end() });
      expect(first.steps.find((s) => s.name === 'backfill_subagent_contexts')?.status).toBe('failed');
      const kept = await db.query<{ value: string }>(`SELECT value FROM kandev_meta WHERE key = 'subagent_context_backfill_window_top'`);
      expect(kept[0]?.value).toMatch(/^2024-12-\d\d \d\d:\d\d:\d\d/); // ISO, whatever the session's DateStyle

      const second = await db.store().runMigrations({ backfillChunk: DAY_WINDOWS });
      expect(second.steps.find((s) => s.name === 'backfill_subagent_contexts')?.status).toBe('applied');
      expect(await backfilledRows(db)).toEqual(single.rows);
    },
  );

  it('a whole run under DateStyle SQL, DMY writes the single statement’s rows and mark', async () => {
    db = await openTestDb('postgres', 'package');
    await seed(db, 29);
    const single = await singleStatementRows(db);
    const dmy = poolFor({ connectionString: db.location, options: '-c DateStyle=SQL,DMY', max: 2 });
    try {
      expect((await createPostgresStore(dmy).runMigrations({ backfillChunk: DAY_WINDOWS })).ok).toBe(true);
    } finally {
      await dmy.end();
    }
    expect(await backfilledRows(db)).toEqual(single.rows);
    const [through] = await db.query<{ value: string }>(`SELECT value FROM kandev_meta WHERE key = 'subagent_context_backfill_through'`);
    expect(through?.value).toBe(single.through);
  });
});
