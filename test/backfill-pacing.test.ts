// The backfill's idle time between transactions (src/migrations/backfill-pacing.ts, pauseAfter;
// each dialect's pacing in src/<dialect>/migrations.ts). SQLite leaves its lock free after each
// transaction long enough for a host writer's busy handler to poll: 50 ms after a transaction
// under 200 ms, when that handler polls at most 50 ms apart, and 120 ms after a longer one, when
// it may poll only every 100 ms (a writer then missed pause after pause: 845 ms behind chunks
// of under 300 ms, in the busy-host test on a loaded machine). A host's own pauseMs is kept as
// it is. PostgreSQL's host writes never wait for the migration lock: no pause at all.
import { describe, expect, it } from 'vitest';
import { pauseAfter } from '../src/migrations/backfill-pacing.js';
import { postgresBackfillPacing } from '../src/postgres/migrations.js';
import { sqliteBackfillPacing } from '../src/sqlite/migrations.js';

describe('the backfill pause between transactions', () => {
  it('SQLite by default: 50 ms after a transaction under 200 ms, 120 ms after a longer one', () => {
    const pacing = sqliteBackfillPacing(undefined);
    expect([0, 160, 199.9].map((ms) => pauseAfter(ms, pacing))).toEqual([50, 50, 50]);
    expect([200, 298, 5_000].map((ms) => pauseAfter(ms, pacing))).toEqual([120, 120, 120]);
  });

  it('SQLite with a host pauseMs: that pause after every transaction', () => {
    for (const pauseMs of [0, 30, 300]) expect([10, 250].map((ms) => pauseAfter(ms, sqliteBackfillPacing({ pauseMs })))).toEqual([pauseMs, pauseMs]);
  });

  it('PostgreSQL: none by default, whatever the transaction took; a host pauseMs as given', () => {
    expect([10, 250, 5_000].map((ms) => pauseAfter(ms, postgresBackfillPacing(0, undefined)))).toEqual([0, 0, 0]);
    expect([10, 250].map((ms) => pauseAfter(ms, postgresBackfillPacing(30_000, { pauseMs: 40 })))).toEqual([40, 40]);
  });
});

describe("PostgreSQL's window walk: each window statement's own time limit", () => {
  it('four times the target, never above the role’s own limit nor PostgreSQL’s largest; none for a target that is no finite number', () => {
    expect(postgresBackfillPacing(0, undefined).windowLimitMs).toBe(2_000);
    expect(postgresBackfillPacing(1_000, undefined).windowLimitMs).toBe(800); // a fifth of the role's, times four
    expect(postgresBackfillPacing(1_000, { targetMs: 2_000 }).windowLimitMs).toBe(1_000); // a review: 8 s raised the role's 1 s
    expect(postgresBackfillPacing(0, { targetMs: 1e9 }).windowLimitMs).toBe(2_147_483_647); // a review: '4000000000ms' failed every boot
    expect(postgresBackfillPacing(0, { targetMs: Infinity }).windowLimitMs).toBeUndefined();
    expect(postgresBackfillPacing(0, { targetMs: NaN }).windowLimitMs).toBeUndefined();
    expect(postgresBackfillPacing(1_000, { targetMs: Infinity }).windowLimitMs).toBe(1_000);
    expect(sqliteBackfillPacing(undefined).windowLimitMs).toBeUndefined();
  });
});
