// Issue 32 items 3 and 4: boot is not held hostage, and the backfill reports its progress.
// runMigrations({ backfill: 'defer' }) runs every step but the backfill (reported skipped, no
// backfill key written), so the host's boot waits for the schema only and live capture works
// from the first frame; a later runMigrations() — started in the background — runs the
// backfill, and a live row recorded meanwhile wins over the backfilled one (AC-22).
// onBackfillProgress is called after each chunk commits, with running totals, `done` on the
// last; a callback that throws does not fail the backfill.
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { frame } from './helpers/live-db.js';
import { metaKeys, stepStatuses } from './helpers/migration-db.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import type { BackfillProgress } from '../src/index.js';

describeBothDialects('runMigrations: a deferred backfill, and its progress (issue 32)', (dialect) => {
  let db: TestDb;
  afterEach(async () => db?.close());

  it("backfill: 'defer' leaves the backfill to a later run; capture works meanwhile; progress per chunk", async () => {
    db = await openTestDb(dialect);
    for (const s of ['s1', 's2', 's3', 's4', 's5']) {
      await insertSession(db, s);
      for (const k of [1, 2]) {
        await insertMessage(db, {
          id: `${s}-m${k}`,
          sessionId: s,
          createdAt: hostTimestamp(dialect, `2026-08-01 10:00:0${k}`),
          metadata: subagentMetadata({ toolCallId: `toolu_${k}`, toolStatus: 'completed', subagent: { total_tokens: k } }),
        });
      }
    }
    const store = db.store();

    const boot = await store.runMigrations({ backfill: 'defer' });
    expect(boot.ok).toBe(true);
    expect(stepStatuses(boot)).toMatchObject({ create_subagent_table: 'applied', record_execution_since: 'applied', backfill_subagent_contexts: 'skipped' });
    expect(boot.steps.find((s) => s.name === 'backfill_subagent_contexts')?.detail).toMatch(/^deferred/);
    expect(Object.keys(await metaKeys(db))).toEqual([ACTIVATION_KEYS.executionSince]);

    // Live capture from the first frame, before the backfill ran: the live row is on the
    // backfill's key ('unknown' execution), so the backfill leaves it as it is (AC-22).
    expect(
      await store.recordFrame(frame({ sessionId: 's1', taskId: 'task-s1', executionId: undefined, toolCallId: 'toolu_1', payload: { total_tokens: 99 } })),
    ).toBe('persisted');

    const progress: BackfillProgress[] = [];
    const later = await store.runMigrations({
      backfillChunk: { maxSessions: 2, pauseMs: 0, maxWindowMs: 0.001 },
      onBackfillProgress: (p) => {
        progress.push(p);
        throw new Error('a display that fails');
      },
    });
    expect(later.ok, JSON.stringify(later.steps)).toBe(true);
    expect(stepStatuses(later).backfill_subagent_contexts).toBe('applied');
    expect(Object.keys(await metaKeys(db)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());

    // SQLite: 5 sessions, 2 per chunk: 2, 2, then 1 (the last). Rows: 2 per session, less the
    // live one; all 10 messages scanned in the first phase's one range, before any session; all 5
    // sessions to walk from the start. PostgreSQL: windows of 1 µs, one per instant, newest first:
    // 10:00:02's five messages, then 10:00:01's (the live row's among them), the last; the 10
    // messages to read counted from the start.
    const figures = (p: BackfillProgress) => [p.phase, p.chunks, p.sessions, p.rowsWritten, p.messagesScanned, p.messagesToScan, p.sessionsToWalk, p.done];
    expect(progress.map(figures)).toEqual(
      byDialect(dialect, {
        sqlite: [
          ['stage', 1, 0, 0, 10, 10, 5, false],
          ['sessions', 2, 2, 3, 10, 10, 5, false],
          ['sessions', 3, 4, 7, 10, 10, 5, false],
          ['sessions', 4, 5, 9, 10, 10, 5, true],
        ],
        postgres: [
          ['windows', 1, 0, 5, 5, 10, 0, false],
          ['windows', 2, 0, 9, 10, 10, 0, true],
        ],
      }),
    );
    const rows = await db.query<{ source: string; total_tokens: number | string }>(
      `SELECT source, total_tokens FROM task_session_subagents WHERE task_session_id = 's1' AND tool_call_id = 'toolu_1'`,
    );
    expect(rows.map((r) => [r.source, Number(r.total_tokens)])).toEqual([['live', 99]]);
  });
});
