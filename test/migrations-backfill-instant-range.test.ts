// A host message whose created_at is no instant the package can hold (a review, 2026-12-07):
// on PostgreSQL 'infinity' gave a backfilled row whose observed_at the reader could not read
// (listBySession failed for the whole session), a year past 9999 a row no reader parses, and a
// date before Christ a row dated the same day AD. SQLite's timestamps stop at year 9999 and read
// none of these as a date. Both dialects now skip such a message, as one whose created_at does
// not parse, in the backfill and in its mark, whichever way PostgreSQL walks.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { backfilled, backfillHelpers } from './helpers/backfill-helpers.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys, stepStatuses } from './helpers/migration-db.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const OUT_OF_RANGE = ['infinity', '-infinity', '290000-01-01 00:00:00', '0044-03-15 12:00:00 BC', '10000-01-01 00:00:00'];

describeBothDialects('runMigrations: a created_at that is no instant the package can hold', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());
  const { ts, message, rows } = backfillHelpers(dialect, () => db);

  it.each(['windows', 'sessions'] as const)('is skipped, by the backfill and its mark alike (%s walk on PostgreSQL)', async (walk) => {
    const metadata = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { description: toolCallId } });
    for (const [i, at] of OUT_OF_RANGE.entries()) await message({ id: `far-${i}`, createdAt: at, metadata: metadata(`toolu_far_${i}`) });
    await message({ id: 'first', createdAt: ts('0001-01-01 00:00:00'), metadata: metadata('toolu_first') }); // Go's zero time
    await message({ id: 'last', createdAt: ts('9999-12-31 23:59:59'), metadata: metadata('toolu_last') });
    const report = await db.store({ clock: steppingClock() }).runMigrations({ backfillChunk: { walk, pauseMs: 0 } });
    expect(stepStatuses(report).backfill_subagent_contexts).toBe('applied');
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('9999-12-31T23:59:59.000000000Z');
    const edge = (toolCallId: string, at: string) =>
      backfilled({ tool_call_id: toolCallId, tool_status: 'completed', description: toolCallId, observed_at: at, settled_at: at, updated_at: at });
    // listBySession reads every row (it failed on an 'infinity' row).
    expect(await rows()).toEqual([edge('toolu_first', '0001-01-01T00:00:00.000000Z'), edge('toolu_last', '9999-12-31T23:59:59.000000Z')]);
  });
});
