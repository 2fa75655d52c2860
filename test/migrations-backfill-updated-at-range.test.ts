// A host message whose updated_at is no instant the package can write and read back (a review,
// 2026-12): PostgreSQL's backfill wrote it as it was, so 'infinity' gave a row whose settled_at
// and updated_at no reader parses (listBySession failed for the whole session), a date BC read
// back as the same day AD, and a year past 9999 was kept. SQLite's backfill reads such text as
// no instant and falls back to created_at (AC-23a's "created_at when NULL"); PostgreSQL now
// reads it the same way (the instant_in_range fragment, as for created_at).
import { afterEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const CREATED = '2026-08-01 10:00:00';

describeBothDialects('backfill: an updated_at out of the package range', (dialect) => {
  let db: TestDb;
  afterEach(async () => db.close());

  // Both PostgreSQL walks (each has its own statement); SQLite has one walk and ignores `walk`.
  it.each([
    ['infinity', 'windows'],
    ['12000-01-01 00:00:00', 'windows'],
    ['0044-03-15 12:00:00 BC', 'windows'],
    ['infinity', 'sessions'],
    ['0044-03-15 12:00:00 BC', 'sessions'],
  ] as const)('updated_at %s (%s walk): settled_at and updated_at fall back to created_at, and the session reads', async (updatedAt, walk) => {
    db = await openTestDb(dialect);
    await insertSession(db, 's1');
    const metadata = subagentMetadata({ toolCallId: 'toolu_1', toolStatus: 'completed', subagent: { description: 'd' } });
    await insertMessage(db, { id: 'm1', sessionId: 's1', metadata, createdAt: CREATED, updatedAt });
    // A message beside it whose updated_at is an ordinary instant keeps it.
    const other = subagentMetadata({ toolCallId: 'toolu_2', toolStatus: 'completed', subagent: { description: 'e' } });
    await insertMessage(db, { id: 'm2', sessionId: 's1', metadata: other, createdAt: CREATED, updatedAt: '2026-08-01 10:05:00' });
    const report = await db.store({ clock: steppingClock() }).runMigrations({ backfillChunk: { pauseMs: 0, walk } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const rows = await db.store().listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.observed_at, r.settled_at, r.updated_at])).toEqual([
      ['toolu_1', '2026-08-01T10:00:00.000000Z', '2026-08-01T10:00:00.000000Z', '2026-08-01T10:00:00.000000Z'],
      ['toolu_2', '2026-08-01T10:00:00.000000Z', '2026-08-01T10:05:00.000000Z', '2026-08-01T10:05:00.000000Z'],
    ]);
  });
});
