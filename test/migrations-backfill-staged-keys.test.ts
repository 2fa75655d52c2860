// Issue 32, SQLite: a phase-2 chunk ranks its candidates from the columns phase 1 staged with
// them (rowid, task id, tool_call_id, created_at as utc9) only when nothing can have changed
// since they were staged (src/sqlite/stage-freshness.ts); otherwise it reads each candidate again
// by id and judges it as it is then. Which way a chunk went shows in json_valid: only the second
// way calls it after phase 1 (the winners' fields are read with json_type and json_extract).
// json_valid is replaced on the migrating connection by a counting function that answers the same
// for these stores' documents (JSON.parse accepts exactly the well-formed ones here).
// Every case also writes exactly the single statement's rows over the store as it then is.
// SQLite only: PostgreSQL stages nothing (its chunks read every message of their sessions).
import { afterEach, describe, expect, it } from 'vitest';
import { backfillSubagentContexts, readChangeMarks } from '../generated/sqlite/index.js';
import { awaited } from '../src/migrations/flow.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import type { BackfillProgress, MigrationOptions } from '../src/index.js';
import { createFailingTrigger, dropFailingTrigger } from './helpers/injected-triggers.js';
import { commitFromAnotherConnection, countJsonValid } from './helpers/other-connection.js';
import { insertChatMessage, seedCompetingToolCalls, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

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
  async function backfill(during: (t: TestDb, p: BackfillProgress) => void, options: MigrationOptions = {}, before?: (t: TestDb) => void) {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 5, toolCalls: 3, chat: true });
    before?.(t);
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
    return { phase2, rows };
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

  // The table named in any case: SQLite keeps a trigger's table name as its DDL wrote it, and one
  // `ON TASK_SESSION_SUBAGENTS` was not counted, so the chunks ranked from stale columns (a review, 2026-12).
  it.each(['task_session_subagents', 'TASK_SESSION_SUBAGENTS'])(
    'a host trigger on a table the backfill writes (ON %s; it fires inside the backfill’s own transactions): every chunk reads its candidates again',
    async (table) => {
      // There before the backfill begins (no schema change during it to give it away): when s0's row
      // is written (the first chunk, s0 and s1), it makes s2's older message the newest (the second chunk).
      const { phase2, rows } = await backfill(
        () => {},
        {},
        (t) =>
          t.sqlite!.exec(`CREATE TRIGGER host_touch AFTER INSERT ON ${table} WHEN NEW.task_session_id = 's0'
          BEGIN UPDATE task_session_messages SET created_at = '2030-01-01 00:00:00' WHERE id = 's2-t1-v0'; END`),
      );
      expect(phase2).toBeGreaterThanOrEqual(30);
      // Judged as the chunk found it: s2's v0 won.
      expect(rows.find((r) => r.task_session_id === 's2' && r.tool_call_id === 'toolu_1')?.description).toBe('v0');
    },
  );

  it('a staging table an earlier run left, its phase-1 keys removed by hand, a candidate changed meanwhile: phase 1 stages again and the chunks judge every candidate as it is', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 2, toolCalls: 1 });
    await createFailingTrigger(t, 'task_session_subagents', `NEW.source = 'backfill'`);
    expect((await t.store().runMigrations({ backfillChunk: { maxSessions: 1, pauseMs: 0 } })).ok).toBe(false);
    await dropFailingTrigger(t, 'task_session_subagents');
    // The host makes v0 the newest of s0's tool call; phase 1's keys go, its table stays.
    t.sqlite!.exec(`UPDATE task_session_messages SET created_at = '2030-01-01 00:00:00+00:00' WHERE id = 's0-t1-v0';
      DELETE FROM kandev_meta WHERE key IN ('subagent_context_backfill_stage_bound', 'subagent_context_backfill_stage_cursor')`);
    const counter = countJsonValid(t.sqlite!);
    let atStageEnd = 0;
    const report = await t.store().runMigrations({
      backfillChunk: { maxSessions: 1, pauseMs: 0 },
      onBackfillProgress: (p) => void (p.phase === 'stage' && (atStageEnd = counter.calls)),
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(counter.calls - atStageEnd).toBeGreaterThanOrEqual(4); // the long way: each candidate judged again
    const rows = await backfilledRows(t);
    expect(rows.map((r) => [r.task_session_id, r.description])).toEqual([
      ['s0', 'v0'],
      ['s1', 'v1'],
    ]);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(rows).toEqual((await singleStatementRows(t)).rows);
  });

  it('a message whose id is NULL (a rowid table’s TEXT PRIMARY KEY allows it) is not staged: the backfill completes without it', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 2, toolCalls: 1 });
    const insert = t.sqlite!.prepare(
      `INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES (?, ?, 'task-s0', ?, '2026-08-01 10:09:00')`,
    );
    insert.run(null, 's0', subagentMetadata({ toolCallId: 'toolu_9', subagent: { description: 'null id' } }));
    const report = await t.store().runMigrations({ backfillChunk: { maxSessions: 1, pauseMs: 0 } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true); // a NULL id made phase 1 fail, on every boot
    expect((await backfilledRows(t)).map((r) => [r.task_session_id, r.tool_call_id, r.description])).toEqual([
      ['s0', 'toolu_1', 'v1'],
      ['s1', 'toolu_1', 'v1'],
    ]);
  });

  it('a created_at of ’now’ is no instant (strftime alone reads the current time): that message does not qualify, either way', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await seedCompetingToolCalls(t, { sessions: 1, toolCalls: 1 });
    const insert = t.sqlite!.prepare(
      `INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES (?, 's0', 'task-s0', ?, ?)`,
    );
    insert.run('s0-t5-now', subagentMetadata({ toolCallId: 'toolu_5', subagent: { description: 'now' } }), 'now');
    insert.run('s0-t5-dated', subagentMetadata({ toolCallId: 'toolu_5', subagent: { description: 'dated' } }), '2026-08-01 10:09:00');
    const reference = await singleStatementRows(t);
    expect((await t.store().runMigrations({ backfillChunk: { pauseMs: 0 } })).ok).toBe(true);
    const rows = await backfilledRows(t);
    expect(rows.map((r) => [r.tool_call_id, r.description])).toEqual([
      ['toolu_1', 'v1'],
      ['toolu_5', 'dated'],
    ]);
    expect(rows).toEqual(reference.rows);
  });

  it('the chunk statement compares the staged columns’ data_version itself: another connection’s commit after the runner read it sends the statement the long way, with the same rows', async () => {
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
