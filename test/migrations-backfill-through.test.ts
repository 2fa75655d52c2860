// AC-24 point 1: backfill_through names the NEWEST qualifying message as an instant. On
// SQLite the statement finds the message whose stored text sorts last through the host's
// created_at index and bounds the exact MAX to the day before its UTC date; this constructs
// stores where stored-text order and instant order disagree, across a date line, so a bound
// a day too tight (or a raw-text MAX) names the wrong message.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';

describeBothDialects('backfill_through high-water mark', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  async function message(id: string, createdAt: Record<typeof dialect, string>) {
    await insertMessage(db, {
      id,
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: `toolu_${id}`, subagent: { status: 'async_launched' } }),
      createdAt: createdAt[dialect],
    });
  }

  it('is the latest instant even when another message sorts later as stored text, a day apart', async () => {
    // A: stored '2026-08-13 09:00' UTC. B: stored '2026-08-12 23:30-10:00' = 2026-08-13 09:30Z,
    // 30 minutes LATER than A although its stored text sorts a whole day earlier.
    await message('a', { sqlite: '2026-08-13 09:00:00.000001+00:00', postgres: '2026-08-13 09:00:00.000001' });
    await message('b', { sqlite: '2026-08-12 23:30:00.5-10:00', postgres: '2026-08-13 09:30:00.5' });
    await message('old', { sqlite: '2026-08-01 10:00:00+00:00', postgres: '2026-08-01 10:00:00' });
    // Not qualifying (no tool_call_id) yet newest of all: never the high-water mark.
    await insertMessage(db, {
      id: 'z',
      sessionId: 's1',
      metadata: JSON.stringify({ normalized: { kind: 'subagent_task', subagent_task: {} } }),
      createdAt: hostTimestamp(dialect, '2026-08-14 00:00:00'),
    });
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(report.ok).toBe(true);
    const [row] = await db.query<{ value: string }>('SELECT value FROM kandev_meta WHERE key = $1', [ACTIVATION_KEYS.backfillThrough]);
    expect(row.value).toBe('2026-08-13T09:30:00.500000000Z');
  });

  it('is the latest instant when offsets reorder messages within one stored date', async () => {
    await message('a', { sqlite: '2026-08-12 23:00:00+05:00', postgres: '2026-08-12 18:00:00' });
    await message('b', { sqlite: '2026-08-12 20:00:00.25-03:00', postgres: '2026-08-12 23:00:00.25' });
    await db.store({ clock: steppingClock() }).runMigrations();
    const [row] = await db.query<{ value: string }>('SELECT value FROM kandev_meta WHERE key = $1', [ACTIVATION_KEYS.backfillThrough]);
    expect(row.value).toBe('2026-08-12T23:00:00.250000000Z');
  });
});
