// Issue 32, SQLite: a phase-2 chunk ranks its candidates from the columns phase 1 staged with
// them (rowid, task id, tool_call_id, created_at as utc9) only when nothing can have changed
// since they were staged (src/sqlite/stage-freshness.ts); otherwise it reads each candidate again
// by id and judges it as it is then. Which way a chunk went shows in json_valid: only the second
// way calls it after phase 1 (the winners' fields are read with json_type and json_extract).
// json_valid is replaced on the migrating connection by a counting function that answers the same
// for these stores' documents (JSON.parse accepts exactly the well-formed ones here).
// Every case also writes exactly the single statement's rows over the store as it then is.
// SQLite only: PostgreSQL stages nothing (its chunks read every message of their sessions).
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { backfillSubagentContexts, readChangeMarks } from '../generated/sqlite/index.js';
import { awaited } from '../src/migrations/flow.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import type { BackfillProgress, MigrationOptions } from '../src/index.js';
import { createFailingTrigger, dropFailingTrigger } from './helpers/injected-triggers.js';
import { commitFromAnotherConnection } from './helpers/other-connection.js';
import { insertChatMessage, seedCompetingToolCalls } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

/** json_valid's answer for the documents these stores hold; `calls` counts them. */
function countJsonValid(db: Database.Database): { calls: number } {
  const counter = { calls: 0 };
  db.function('json_valid', (doc: unknown) => {
    counter.calls++;
    if (doc === null) return null;
    try {
      JSON.parse(String(doc));
      return 1;
    } catch {
      return 0;
    }
  });
  return counter;
}

describe('SQLite: a chunk ranks from the staged columns only while nothing changed since phase 1 (issue 32)', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  /**
   * A store of 5 sessions × 3 tool calls of two competing messages and a chat message, the
   * single statement's rows over it, then the backfill in ranges of 4 rowids and chunks of 2
   * sessions, `during` called at each of phase 1's progress reports. Returns the json_valid
   * calls after phase 1's last range, and whether the rows are the single statement's over
   * the store as it is at the end.
   */
  async function backfill(during: (t: TestDb, p: BackfillProgress) => void, options: MigrationOptions = {}) {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 5, toolCalls: 3, chat: true });
    const counter = countJsonValid(t.sqlite!);
    let atStageEnd = 0;
    const report = await t.store().runMigrations({
      backfillChunk: { maxSessions: 2, maxStageRowids: 4, pauseMs: 0 },
      onBackfillProgress: (p) => {
        if (p.phase !== 'stage') return;
        during(t, p);
        atStageEnd = counter.calls;
      },
      ...options,
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const phase2 = counter.calls - atStageEnd;
    const rows = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    const reference = await singleStatementRows(t);
    expect(rows).toEqual(reference.rows);
    expect(rows).toHaveLength(15);
    return { phase2 };
  }

  it('nothing changed since phase 1: every chunk ranks from the staged columns and reads no candidate again', async () => {
    expect((await backfill(() => {})).phase2).toBe(0);
  });

  it('another connection commits during phase 1 (to a table the backfill does not read): every chunk reads its candidates again', async () => {
    const { phase2 } = await backfill((t, p) => {
      if (p.chunks === 1) commitFromAnotherConnection(t.location);
    });
    expect(phase2).toBeGreaterThanOrEqual(30); // each of the 30 subagent messages judged again
  });

  it('the host writes on the shared connection between two of the backfill transactions: every chunk reads its candidates again', async () => {
    const { phase2 } = await backfill((t, p) => {
      if (p.chunks === 2) void insertChatMessage(t, 'late-chat', 's1', '2026-08-01 10:06:00');
    });
    expect(phase2).toBeGreaterThanOrEqual(30);
  });

  it('a VACUUM on the shared connection during phase 1 (rowids may move; the schema version changes): every chunk reads its candidates again', async () => {
    const { phase2 } = await backfill((t, p) => {
      if (p.chunks === 1) t.sqlite!.exec('VACUUM');
    });
    expect(phase2).toBeGreaterThanOrEqual(30);
  });

  it('a run that resumes a staging table an earlier run filled: its chunks read their candidates again', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 5, toolCalls: 3, chat: true });
    const reference = await singleStatementRows(t);
    // The first run stages everything, then fails on its first row; the second resumes.
    await createFailingTrigger(t, 'task_session_subagents', `NEW.source = 'backfill'`);
    const failed = await t.store().runMigrations({ backfillChunk: { maxSessions: 2, pauseMs: 0 } });
    expect(failed.ok).toBe(false);
    await dropFailingTrigger(t, 'task_session_subagents');
    const counter = countJsonValid(t.sqlite!);
    const resumed = await t.store().runMigrations({ backfillChunk: { maxSessions: 2, pauseMs: 0 } });
    expect(resumed.ok, JSON.stringify(resumed.steps)).toBe(true);
    expect(counter.calls).toBeGreaterThanOrEqual(30); // no phase 1 this time: all of it is phase 2's
    expect(await backfilledRows(t)).toEqual(reference.rows);
  });

  it('the chunk statement checks the staged columns’ data_version in its own snapshot: a commit after the runner looked sends it the long way, with the same rows', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 3, toolCalls: 2 });
    const migration = createSqliteMigrationDatabase(t.sqlite!);
    await migration.locked(function* (p) {
      yield* awaited(p.staging!.createStage());
      yield* awaited(p.staging!.createRange());
      yield* awaited(p.staging!.stageRange(-(2n ** 63n), 2n ** 62n));
      return yield* awaited(p.staging!.keepRange());
    });
    t.sqlite!.exec(
      `CREATE TEMP TABLE IF NOT EXISTS subagent_context_backfill_rows AS SELECT s.*, s.id AS source_message_id FROM main.task_session_subagents AS s WHERE false`,
    );
    const counter = countJsonValid(t.sqlite!);
    const compute = (stagedAt: bigint | null) => {
      t.sqlite!.exec('DELETE FROM temp.subagent_context_backfill_rows');
      const before = counter.calls;
      const rows = backfillSubagentContexts.exec({ after: '', upTo: 's2', stagedAt }, t.sqlite!);
      const written = t
        .sqlite!.prepare('SELECT task_session_id, tool_call_id, description, source_message_id FROM temp.subagent_context_backfill_rows ORDER BY 1, 2')
        .all();
      return { rows, written, jsonValid: counter.calls - before };
    };
    const stagedAt = readChangeMarks.one({}, t.sqlite!).dataVersion;
    const staged = compute(stagedAt);
    expect(staged).toMatchObject({ rows: 6, jsonValid: 0 });
    expect(compute(null)).toEqual({ ...staged, jsonValid: 12 }); // the long way: each of the 12 candidates judged again
    commitFromAnotherConnection(t.location);
    expect(compute(stagedAt)).toEqual({ ...staged, jsonValid: 12 }); // stale now: the long way
  });
});
