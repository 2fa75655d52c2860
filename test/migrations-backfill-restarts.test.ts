// Issue 32: when the backfill must start over, and when it must not (src/migrations/backfill-step.ts,
// src/migrations/backfill-stage.ts). Each case is a host or an operator acting between two of
// the backfill's transactions, and each must end with the rows the single statement writes
// over the store as it then is:
//   - the kept mark's key removed by hand mid-walk: the next run reads a new mark and walks
//     every session again (kept progress would let the new, later mark claim a message added
//     to a session the old walk had passed);
//   - SQLite: phase 1 restarted by another process while this one walks the sessions: no chunk
//     writes from the half-filled staging table;
//   - SQLite: the anchor message deleted and the rowids renumbered (VACUUM changes the schema
//     version): phase 1 starts over, though the anchor is gone;
//   - SQLite: progress counts the rowids a range jumped over, so phase 1 ends at its total.
// PostgreSQL stages nothing; the same host work between its chunks (session or window) gives the
// same guarantee.
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS, type BackfillProgress } from '../src/index.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { seedCompetingToolCalls, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SESSIONS = 5;
type Walk = 'sessions' | 'windows';

/** Each session: two tool calls, each of two competing messages (the newer wins). */
const seedStore = (db: TestDb) => seedCompetingToolCalls(db, { sessions: SESSIONS, toolCalls: 2 });

/** Phase 1's anchor (SQLite): the message at the end of the last range read, by rowid and id. */
function stageAnchor(t: TestDb): { rowid: bigint; id: string } {
  const value = t.sqlite!.prepare('SELECT value FROM kandev_meta WHERE key = ?').pluck().get(BACKFILL_PROGRESS_KEYS.stageAnchor) as string;
  const at = value.indexOf(':');
  return { rowid: BigInt(value.slice(0, at)), id: value.slice(at + 1) };
}

/** The rows a run wrote, against the single statement over the store as it is now. */
async function expectSingleStatementRows(t: TestDb): Promise<Record<string, unknown>[]> {
  const migrated = await backfilledRows(t);
  const through = (await metaKeys(t))[ACTIVATION_KEYS.backfillThrough];
  await t.exec(`DELETE FROM task_session_subagents`);
  const reference = await singleStatementRows(t);
  expect(migrated).toEqual(reference.rows);
  expect(through).toBe(reference.through);
  return migrated;
}

describeBothDialects('runMigrations: the backfill starts over when it must (issue 32)', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  // Between the backfill's transactions, as a host would: SQLite on the store's own connection,
  // synchronously; PostgreSQL on another connection, within the pause.
  const pauseMs = byDialect(dialect, { sqlite: 0, postgres: 300 });

  // PostgreSQL: its session walk, and its window walk (one instant per window: four of them).
  for (const walk of byDialect(dialect, { sqlite: ['sessions'] as Walk[], postgres: ['sessions', 'windows'] as Walk[] }))
    it(`the kept mark removed by hand mid-walk: the next run reads a new mark and walks every ${walk === 'windows' ? 'window' : 'session'} again`, async () => {
      db = await openTestDb(dialect, 'package');
      const t = db;
      await seedStore(t);
      let change: Promise<unknown> | undefined;
      const late = hostTimestamp(dialect, '2026-08-01 11:00:00');
      const first = await t.store().runMigrations({
        backfillChunk: { maxSessions: 1, pauseMs, walk, maxWindowMs: 0.001 },
        onBackfillProgress: (p) => {
          if (walk === 'windows' ? p.chunks !== 2 : p.phase !== 'sessions' || p.sessions !== 2) return;
          // s0 and s1 walked (two windows read): a new subagent in s0, newer than any message, and the mark's key gone.
          const sql = [
            `DELETE FROM kandev_meta WHERE key = '${BACKFILL_PROGRESS_KEYS.through}'`,
            `INSERT INTO task_session_messages (id, task_session_id, task_id, author_type, content, type, metadata, created_at)
           VALUES ('s0-t9-late', 's0', 'task-s0', 'agent', '', 'tool_call', '${subagentMetadata({ toolCallId: 'toolu_9', toolStatus: 'completed', subagent: { description: 'late' } })}', '${late}')`,
          ];
          if (dialect === 'sqlite') for (const s of sql) t.sqlite!.exec(s);
          else change = t.exec(sql.join(';\n'));
        },
      });
      await change;
      expect(first.ok).toBe(false); // the next chunk finds its mark gone
      expect((await t.store().runMigrations({ backfillChunk: { pauseMs: 0 } })).ok).toBe(true);
      const rows = await expectSingleStatementRows(t);
      expect(rows.find((r) => r.task_session_id === 's0' && r.tool_call_id === 'toolu_9')?.description).toBe('late');
    });

  it('phase 1 restarted by another process while this one walks the sessions (SQLite): the chunks wait for it to finish again', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seedStore(t);
    const phases: string[] = [];
    const report = await t.store().runMigrations({
      backfillChunk: { maxSessions: 1, maxStageRowids: 4, pauseMs },
      onBackfillProgress: (p) => {
        phases.push(p.phase);
        if (dialect !== 'sqlite' || p.phase !== 'sessions' || p.sessions !== 1) return;
        // What another process's first transaction does when it finds the staging table gone
        // (dropped by hand): a new, empty table, phase 1 from the start.
        t.sqlite!.exec(`DELETE FROM subagent_context_backfill_stage;
          DELETE FROM kandev_meta WHERE key = '${BACKFILL_PROGRESS_KEYS.stageAnchor}';
          UPDATE kandev_meta SET value = '0' WHERE key = '${BACKFILL_PROGRESS_KEYS.stageCursor}'`);
      },
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    await expectSingleStatementRows(t);
    // SQLite: phase 1, one session, phase 1 again, the rest.
    const changes = phases.filter((p, i) => i > 0 && p !== phases[i - 1]).length;
    expect(changes).toBe(byDialect(dialect, { sqlite: 3, postgres: 0 }));
  });

  /** A seeded store's backfill in ranges of 3 rowids and chunks of 2 sessions; `host` acts after each report (SQLite only). */
  async function migrateBesideHost(host: (t: TestDb, p: BackfillProgress, reports: number) => void): Promise<BackfillProgress[]> {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seedStore(t);
    const reports: BackfillProgress[] = [];
    const report = await t.store().runMigrations({
      backfillChunk: { maxSessions: 2, maxStageRowids: 3, pauseMs },
      onBackfillProgress: (p) => {
        reports.push(p);
        if (dialect === 'sqlite') host(t, p, reports.length);
      },
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    await expectSingleStatementRows(t);
    return reports;
  }

  it('the anchor deleted and the rowids renumbered between two ranges (SQLite, as VACUUM may): phase 1 starts over', async () => {
    const reports = await migrateBesideHost((t, _p, n) => {
      if (n !== 2) return;
      // The anchor and the message before it deleted, every rowid renumbered in order with no gap
      // (the two after them, a tool call's loser and winner, now sit at and below the cursor, in
      // the part walked), then VACUUM, which changes the schema version.
      const { rowid } = stageAnchor(t);
      t.sqlite!.prepare('DELETE FROM task_session_messages WHERE rowid > ? AND rowid <= ?').run(rowid - 2n, rowid);
      t.sqlite!.exec(`CREATE TEMP TABLE renumber AS SELECT rowid AS old, row_number() OVER (ORDER BY rowid) AS new FROM task_session_messages;
          UPDATE task_session_messages SET rowid = -rowid;
          UPDATE task_session_messages SET rowid = (SELECT r.new FROM renumber AS r WHERE r.old = -task_session_messages.rowid);
          DROP TABLE renumber;
          VACUUM;`);
    });
    // SQLite: two ranges of 3 rowids, then all of them again (18 messages left).
    expect(reports.filter((p) => p.phase === 'stage')).toHaveLength(byDialect(dialect, { sqlite: 2 + Math.ceil(18 / 3), postgres: 0 }));
  });

  it('the anchor deleted, nothing renumbered (SQLite): phase 1 goes on, a host deleting messages never restarts it', async () => {
    const reports = await migrateBesideHost((t, p) => {
      if (p.phase === 'stage') t.sqlite!.prepare('DELETE FROM task_session_messages WHERE id = ?').run(stageAnchor(t).id);
    });
    // SQLite: 20 rowids in ranges of 3, each range's anchor deleted after it, none walked twice.
    expect(reports.filter((p) => p.phase === 'stage')).toHaveLength(byDialect(dialect, { sqlite: Math.ceil(20 / 3), postgres: 0 }));
  });

  it('a message at rowid -2^63, the least SQLite allows (SQLite): staged like any other', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seedStore(t);
    // The winner of s2's first tool call, moved to the very first rowid.
    if (dialect === 'sqlite') t.sqlite!.exec(`UPDATE task_session_messages SET rowid = -9223372036854775808 WHERE id = 's2-t1-v1'`);
    const report = await t.store().runMigrations({ backfillChunk: { maxSessions: 2, maxStageRowids: 3, pauseMs: 0 } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const rows = await expectSingleStatementRows(t);
    expect(rows.find((r) => r.task_session_id === 's2' && r.tool_call_id === 'toolu_1')?.description).toBe('v1');
  });

  it('progress counts the rowids a range jumped over: phase 1 ends at its total (SQLite, one rowid of 2^40)', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seedStore(t);
    if (dialect === 'sqlite') t.sqlite!.exec(`UPDATE task_session_messages SET rowid = ${2 ** 40} WHERE id = 's3-t2-v1'`);
    const stage: BackfillProgress[] = [];
    const report = await t.store().runMigrations({
      backfillChunk: { maxStageRowids: 8, pauseMs: 0 },
      onBackfillProgress: (p) => void (p.phase === 'stage' && stage.push(p)),
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    await expectSingleStatementRows(t);
    if (dialect === 'postgres') return expect(stage).toEqual([]);
    const last = stage[stage.length - 1];
    expect(last.messagesToScan).toBe(2 ** 40);
    expect(last.messagesScanned).toBe(last.messagesToScan);
    expect(stage.length).toBeLessThanOrEqual(5); // 19 rowids in ranges of 8, and the jump
  });
});
