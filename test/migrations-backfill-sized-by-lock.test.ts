// Issue 32, SQLite's backfill in WAL mode (src/migrations/backfill-pacing.ts, nextWorkSizes):
// work computed ahead of a transaction is sized by the lock the transaction holds, work done
// under the lock by the whole time it would take there. So a computation found stale is done
// again under the lock at the smaller size, and the walk goes on from there, with the rows the
// single statement writes. The sizes themselves are unit-tested in test/backfill-pacing.test.ts.
// SQLite only: PostgreSQL computes nothing ahead (test/migrations-backfill-read-ahead.test.ts
// runs the same host work between its chunks).
import { afterEach, describe, expect, it } from 'vitest';
import type { BackfillChunkOptions } from '../src/index.js';
import { migrate, noReads, type Hooks } from './helpers/counting-migration-db.js';
import { seedCompetingToolCalls } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

describe('runMigrations on SQLite: work computed ahead sized by the lock its transaction holds (issue 32)', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  // Every computation outside the lock takes SLOW_MS more: the next computation is sized by the
  // quick keep under the lock (it grows fourfold while that keep takes under 160 ms, four fifths of
  // the 200 ms target), work done under the lock by the whole time (under the first size, as the
  // computation alone took 160 ms). So a computation found stale is done again under the lock at
  // the smaller size, and the walk goes on from there. The slow computations are the margin: a
  // keep stalled by a loaded machine has 160 ms before the sizes stop telling the two apart.
  const SIZED: BackfillChunkOptions = { targetMs: 200, pauseMs: 0 };
  const SLOW_MS = 160;

  /** The migration pass with every computation slowed, recording each range's and chunk's size and where it was computed. */
  async function migrateSlowly(t: TestDb, hooks: Pick<Hooks, 'afterRange' | 'afterRows'>) {
    const sizes: NonNullable<Hooks['sizes']> = { ranges: [], chunks: [] };
    const report = await migrate(t, noReads(), { ...hooks, sizes, slowUnlockedMs: SLOW_MS }, undefined, SIZED);
    return { report, sizes };
  }

  it('a chunk computed ahead and found stale is computed again under the lock at the lock’s own size, not the computation’s; the rows are the single statement’s', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 100, toolCalls: 1 });
    const sessions = (t.sqlite!.prepare(`SELECT id FROM task_sessions ORDER BY id`).pluck().all() as string[]).slice(16);
    const { report, sizes } = await migrateSlowly(t, {
      // After the second chunk was computed ahead: a session of it deleted (its sessions are no longer the same).
      afterRows: (n) =>
        n === 2 &&
        t.sqlite!.exec(`DELETE FROM task_session_messages WHERE task_session_id = '${sessions[2]}'; DELETE FROM task_sessions WHERE id = '${sessions[2]}'`),
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
    expect(migrated).toHaveLength(99);
    // 16 sessions ahead, kept; then more ahead (up to 64), found stale; computed under the lock:
    // fewer, as many as the lock's own size; the next chunk under the lock too.
    const [first, second, third, fourth] = sizes.chunks;
    expect(first).toEqual(['ahead', 16]);
    expect(second[0]).toBe('ahead');
    expect(second[1]).toBeGreaterThan(16);
    expect(third[0]).toBe('locked');
    expect(third[1]).toBeLessThan(second[1]);
    expect(fourth[0]).toBe('locked');
  });

  it('a phase-1 range read ahead and found stale is read again under the lock at the lock’s own size, not the read’s; the rows are the single statement’s', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 40, toolCalls: 3, chat: true });
    // Rowids 1,000 apart: ranges of 65 536 rowids and more hold a few messages each.
    t.sqlite!.exec(`UPDATE task_session_messages SET rowid = rowid * 1000`);
    const reference = await singleStatementRows(t);
    const { report, sizes } = await migrateSlowly(t, {
      // After the second range was read ahead: the schema version changed (as a VACUUM changes it).
      afterRange: (n) => n === 2 && t.sqlite!.exec(`CREATE TABLE vacuum_marker (x); DROP TABLE vacuum_marker;`),
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(reference.rows);
    const [first, second, third] = sizes.ranges;
    expect(first).toEqual(['ahead', 65_536]);
    expect(second[0]).toBe('ahead');
    expect(second[1]).toBeGreaterThan(65_536);
    expect(third[0]).toBe('locked');
    expect(third[1]).toBeLessThan(second[1]);
  });
});
