// Issue 32, SQLite's staged backfill (src/migrations/backfill-stage.ts): phase 1 stages the
// candidates in rowid ranges, phase 2 writes each chunk of sessions from them. The host keeps
// working between the backfill's transactions, so:
//   - its table rewritten between two ranges (SQLite: rowids renumbered, which VACUUM may do;
//     here reversed, so the ranges walked no longer hold the messages they held) makes phase 1
//     start over, and the rows are still exactly the single statement's;
//   - a message changed or deleted after phase 1 staged it is judged as phase 2 finds it: the
//     rows are the single statement's over the store as it then is.
// PostgreSQL stages nothing; the same host work between its chunks gives the same guarantee.
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS, type BackfillProgress } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { prng } from './helpers/prng.js';
import { insertChatMessage, insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SESSIONS = 6;

/** Each session: three tool calls of two or three competing messages, and chat; all inserted in a shuffled order. */
async function seedCompetingStore(db: TestDb): Promise<number> {
  const r = prng(3232);
  const messages: Array<() => Promise<void>> = [];
  for (let s = 0; s < SESSIONS; s++) {
    const sessionId = `s${s}`;
    await insertSession(db, sessionId);
    for (let t = 1; t <= 3; t++) {
      for (let v = 0; v < 2 + (t % 2); v++) {
        const at = `2026-08-01 10:0${v}:0${t}`;
        messages.push(() =>
          insertMessage(db, {
            id: `${sessionId}-t${t}-v${v}`,
            sessionId,
            createdAt: hostTimestamp(db.dialect, at),
            metadata: subagentMetadata({ toolCallId: `toolu_${t}`, toolStatus: 'completed', subagent: { description: `v${v}`, total_tokens: 10 + v } }),
          }),
        );
      }
    }
    messages.push(() => insertChatMessage(db, `${sessionId}-chat`, sessionId, hostTimestamp(db.dialect, '2026-08-01 10:05:00')));
  }
  for (let i = messages.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [messages[i], messages[j]] = [messages[j], messages[i]];
  }
  for (const insert of messages) await insert();
  return messages.length;
}

async function stageTablePresent(db: TestDb): Promise<boolean> {
  const rows = await byDialect(db.dialect, {
    sqlite: () => db.query(`SELECT 1 FROM sqlite_master WHERE name = 'subagent_context_backfill_stage'`),
    postgres: () => db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'subagent_context_backfill_stage'`),
  })();
  return rows.length > 0;
}

describeBothDialects('runMigrations: the backfill while the host rewrites its messages (issue 32)', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('the table rewritten between two transactions (SQLite: every rowid renumbered, in reverse): phase 1 starts over, the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    const messages = await seedCompetingStore(t);
    const reference = await singleStatementRows(t);
    let rewrite: Promise<unknown> | undefined;
    let stagedMidway = false;
    const reports: BackfillProgress[] = [];
    const report = await t.store().runMigrations({
      backfillChunk: { maxSessions: 2, maxStageRowids: 5, pauseMs: byDialect(dialect, { sqlite: 0, postgres: 300 }) },
      onBackfillProgress: (p) => {
        reports.push(p);
        if (reports.length !== 2) return;
        // Between transactions, as a host would: SQLite on the store's own connection, synchronously;
        // PostgreSQL on another connection, done within the pause.
        if (dialect === 'sqlite') {
          stagedMidway = t.sqlite!.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'subagent_context_backfill_stage'`).get() !== undefined;
          t.sqlite!.exec(`UPDATE task_session_messages SET rowid = -rowid; UPDATE task_session_messages SET rowid = ${messages + 1} + rowid`);
        } else rewrite = t.query(`UPDATE task_session_messages SET metadata = metadata`);
      },
    });
    await rewrite;
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(reference.rows);
    expect(Object.keys(await metaKeys(t)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    expect(await stageTablePresent(t)).toBe(false); // dropped with the keys' write
    expect(stagedMidway).toBe(dialect === 'sqlite'); // and there while phase 1 ran
    const ranges = reports.filter((p) => p.phase === 'stage').length;
    // SQLite: two ranges walked, then all of them again from the new numbering.
    expect(ranges).toBe(byDialect(dialect, { sqlite: 2 + Math.ceil(messages / 5), postgres: 0 }));
  });

  it('a message deleted or changed after it was staged is judged as the chunk finds it', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seedCompetingStore(t);
    let change: Promise<unknown> | undefined;
    const changes = [
      `DELETE FROM task_session_messages WHERE id = 's4-t1-v2'`, // the newest of its tool call: the runner-up wins
      `UPDATE task_session_messages SET metadata = '{"tool_call_id":"toolu_2","normalized":{"kind":"read"}}' WHERE id = 's5-t2-v1'`, // no longer qualifies
      `UPDATE task_session_messages SET metadata = replace(metadata, '"v2"', '"rewritten"') WHERE id = 's5-t3-v2'`, // the winner's fields
    ];
    const report = await t.store().runMigrations({
      // PostgreSQL's session walk, whose chunks go by key as SQLite's do after phase 1 (its window
      // walk reads each message as its window finds it, and has no such order to hook into).
      backfillChunk: { maxSessions: 1, pauseMs: byDialect(dialect, { sqlite: 0, postgres: 300 }), walk: 'sessions' },
      onBackfillProgress: (p) => {
        // After every message was staged (SQLite) or the first chunk (PostgreSQL), before the
        // chunks of s4 and s5 (key order).
        if (p.phase !== 'sessions' || p.sessions !== 1) return;
        if (dialect === 'sqlite') for (const sql of changes) t.sqlite!.exec(sql);
        else change = t.exec(changes.join(';\n'));
      },
    });
    await change;
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    const reference = await singleStatementRows(t); // over the store as it is now
    expect(migrated).toEqual(reference.rows);
    const s4 = migrated.find((r) => r.task_session_id === 's4' && r.tool_call_id === 'toolu_1');
    expect(s4?.description).toBe('v1');
    expect(migrated.find((r) => r.task_session_id === 's5' && r.tool_call_id === 'toolu_2')?.description).toBe('v0');
    expect(migrated.find((r) => r.task_session_id === 's5' && r.tool_call_id === 'toolu_3')?.description).toBe('rewritten');
  });
  it('rowids compacted in order below the cursor (as VACUUM closes gaps), one rowid of 2^40, the staging table dropped by hand: phase 1 starts over or jumps, the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    const messages = await seedCompetingStore(t);
    // A message far beyond the others (a host may set a rowid): ranges of 5 rowids would need 2^38 transactions to reach it.
    if (dialect === 'sqlite') t.sqlite!.exec(`UPDATE task_session_messages SET rowid = ${2 ** 40} WHERE id = 's2-t2-v1'`);
    const reports: BackfillProgress[] = [];
    const first = await t.store().runMigrations({
      backfillChunk: { maxSessions: 2, maxStageRowids: 5, pauseMs: 0 },
      onBackfillProgress: (p) => {
        reports.push(p);
        if (dialect !== 'sqlite' || reports.length !== 2) return;
        // Chat messages below the cursor deleted, then every rowid renumbered in order with no gap.
        const cursor = t.sqlite!.prepare(`SELECT value FROM kandev_meta WHERE key = 'subagent_context_backfill_stage_cursor'`).pluck().get() as string;
        t.sqlite!.exec(`DELETE FROM task_session_messages WHERE id LIKE '%-chat' AND rowid <= ${cursor}`);
        t.sqlite!.exec(`CREATE TEMP TABLE renumber AS SELECT rowid AS old, row_number() OVER (ORDER BY rowid) AS new FROM task_session_messages;
          UPDATE task_session_messages SET rowid = -rowid;
          UPDATE task_session_messages SET rowid = (SELECT r.new FROM renumber AS r WHERE r.old = -task_session_messages.rowid);
          DROP TABLE renumber;`);
      },
    });
    expect(first.ok, JSON.stringify(first.steps)).toBe(true);
    const ranges = reports.filter((p) => p.phase === 'stage').length;
    // SQLite: two ranges, then all of them again (the jump over the far rowid costs one range at most).
    if (dialect === 'sqlite') expect(ranges).toBeGreaterThan(2 + Math.floor((messages - SESSIONS) / 5) - 1);
    expect(ranges).toBeLessThanOrEqual(byDialect(dialect, { sqlite: 2 + Math.ceil(messages / 5) + 1, postgres: 0 }));
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it is now

    // The staging table dropped by hand while the backfill's keys stay: that run fails, the next stages again.
    await t.exec(`DELETE FROM kandev_meta WHERE key IN ('${ACTIVATION_KEYS.captureSince}', '${ACTIVATION_KEYS.backfillThrough}')`);
    let dropped = false;
    const broken = await t.store().runMigrations({
      backfillChunk: { maxSessions: 2, maxStageRowids: 5, pauseMs: 0 },
      onBackfillProgress: () => {
        if (dialect === 'sqlite' && !dropped) t.sqlite!.exec('DROP TABLE subagent_context_backfill_stage');
        dropped = true;
      },
    });
    expect(broken.ok).toBe(dialect !== 'sqlite');
    if (dialect === 'sqlite') expect((await t.store().runMigrations({ backfillChunk: { pauseMs: 0 } })).ok).toBe(true);
    expect(await backfilledRows(t)).toEqual(migrated);
    expect(Object.keys(await metaKeys(t)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    expect(await stageTablePresent(t)).toBe(false);
  });
});
