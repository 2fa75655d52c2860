// Issue 32 item 1: the chunked backfill writes exactly the rows the single statement writes.
// On random stores — session keys in awkward orders (case, punctuation, the empty key), tool
// calls repeated within a session and across sessions (AC-21b's winner, created_at ties broken
// by id), malformed and non-qualifying metadata, identities empty or beyond the indexable bound
// (AC-21a), messages whose session is gone — the rows of runMigrations() with chunks of one to
// a few sessions equal the rows of the same statement run ONCE over the whole key range (the
// single-statement backfill: one chunk holding every session; on SQLite 0.2's read of every
// message in storage order, with no staged phase), and the activation keys equal what that run
// publishes (backfill_through from the source predicate, AC-24 point 1). On SQLite the first
// phase reads the messages in rowid ranges of one to a few rowids, so a tool call's competing
// messages (inserted in random created_at order) are staged by different ranges; and each store
// is backfilled both ways a SQLite chunk can rank its candidates (src/sqlite/stage-freshness.ts):
// from the columns phase 1 staged, when nothing changed since, and, after another connection
// committed during phase 1, from each candidate read again.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_KEYS, type BackfillProgress } from '../src/index.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertWithoutForeignKeys, metaKeys } from './helpers/migration-db.js';
import { prng, type Prng } from './helpers/prng.js';
import { commitFromAnotherConnection, countJsonValid } from './helpers/other-connection.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const STORES = 8;
const SESSION_KEYS = ['', 'A', 'B-1', 'a', 'a b', 'a_b', 'a-b', 'b', 'Z', 'z9', 's10', 's2', 's1', '~', '0', 'éa', 'x'.repeat(300)];
const TOOL_CALLS = ['toolu_1', 'toolu_2', 'toolu_3', '', 'x'.repeat(600)];
const STATUSES = ['completed', 'in_progress', 'failed', 'pending', ''];

function metadataFor(r: Prng): string | null {
  const toolCallId = r.pick(TOOL_CALLS);
  switch (r.int(10)) {
    case 0:
      return null;
    case 1:
      return '{not json';
    case 2:
      return JSON.stringify({ tool_call_id: toolCallId, normalized: { kind: 'read' } });
    case 3:
      return JSON.stringify({ tool_call_id: 7, normalized: { kind: 'subagent_task', subagent_task: {} } });
    default:
      return JSON.stringify({
        tool_call_id: toolCallId,
        status: r.pick(STATUSES),
        normalized: {
          kind: 'subagent_task',
          subagent_task: {
            status: r.pick(STATUSES),
            description: `d${r.int(1000)}`,
            total_tokens: r.pick([0, 1, 250, 1.5, '9', 1e2]),
            is_async: r.chance(0.3),
          },
        },
      });
  }
}

async function seedRandomStore(db: TestDb, r: Prng): Promise<void> {
  const sessions = SESSION_KEYS.filter(() => r.chance(0.7));
  for (const s of sessions) await insertSession(db, s);
  const instants = Array.from({ length: 6 }, (_, k) => 1_785_000_000_000_000_000n + BigInt(k) * 1_000_000_000n + (k % 2 ? 500_000n : 0n));
  const messages = 40 + r.int(60);
  for (let i = 0; i < messages; i++) {
    const orphan = r.chance(0.05) || sessions.length === 0;
    const sessionId = orphan ? `gone-${r.int(3)}` : r.pick(sessions);
    const createdAt = hostTimestamp(db, r.pick(instants));
    const params = [
      `${r.pick(['m', 'M', 'n'])}${r.int(50)}-${i}`,
      sessionId,
      r.chance(0.1) ? '' : `task-${sessionId}`,
      r.chance(0.2) ? null : `turn-${r.int(3)}`,
      metadataFor(r),
      createdAt,
      r.chance(0.3) ? null : hostTimestamp(db, r.pick(instants) + 7_000_000_000n),
    ];
    const sql =
      'INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, metadata, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)';
    if (orphan) await insertWithoutForeignKeys(db, sql, params);
    else await db.query(sql, params);
  }
}

describeBothDialects('runMigrations: the chunked backfill equals the single statement (issue 32)', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it(`on ${STORES} random stores, with chunks of 1 to 4 sessions (and on SQLite ranges of 1 to 4 rowids, each store both ways)`, async () => {
    const ways = dialect === 'sqlite' ? (['staged columns', 'read again'] as const) : (['sessions'] as const);
    for (let seed = 1; seed <= STORES; seed++)
      for (const way of ways) {
        const r = prng(3200 + seed);
        db = await openTestDb(dialect, 'package');
        await seedRandomStore(db, r);
        const single = await singleStatementRows(db);
        // Which way SQLite's chunks went: only the long way calls json_valid after phase 1.
        const jsonValid = dialect === 'sqlite' ? countJsonValid(db.sqlite!) : { calls: 0 };
        let atStageEnd = 0;
        const maxSessions = 1 + r.int(4);
        const maxStageRowids = 1 + r.int(4);
        const chunks: number[] = [];
        const ranges: number[] = [];
        const report = await db.store().runMigrations({
          // PostgreSQL's session walk here; its window walk in the next test.
          backfillChunk: { maxSessions, maxStageRowids, pauseMs: 0, walk: 'sessions' },
          onBackfillProgress: (p) => {
            (p.phase === 'stage' ? ranges : chunks).push(p.sessions);
            if (p.phase === 'stage') atStageEnd = jsonValid.calls;
            // The same store again, after a commit elsewhere: every chunk reads its candidates again.
            if (way === 'read again' && p.phase === 'stage' && ranges.length === 1) commitFromAnotherConnection(db!.location);
          },
        });
        expect(report.ok, JSON.stringify(report.steps)).toBe(true);
        const chunked = await backfilledRows(db);
        expect(chunked, `seed ${seed}, chunks of ${maxSessions}, ${way}`).toEqual(single.rows);
        if (way === 'staged columns') expect(jsonValid.calls - atStageEnd, `seed ${seed}`).toBe(0);
        if (way === 'read again') expect(jsonValid.calls - atStageEnd, `seed ${seed}`).toBeGreaterThan(0);
        // The walk starts after the key '' (a session keyed '' is not recordable, AC-21a).
        const sessions = (await db.query(`SELECT id FROM task_sessions WHERE id <> ''`)).length;
        expect(chunks.length, `seed ${seed}`).toBe(Math.floor(sessions / maxSessions) + 1); // really chunked
        // SQLite's first phase really read in ranges: as many as the rowids need (every message kept its rowid).
        const messages = (await db.query(`SELECT id FROM task_session_messages`)).length;
        expect(ranges.length, `seed ${seed}`).toBe(dialect === 'sqlite' ? Math.ceil(messages / maxStageRowids) : 0);
        const keys = await metaKeys(db);
        expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
        expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
        await db.close();
        db = undefined;
      }
  }, 120_000);
});

describe('runMigrations: the window walk equals the single statement (issue 32 item 5) [postgres]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  // PostgreSQL's window walk (src/migrations/backfill-windows.ts): the stores' six instants lie
  // about a second apart (every other one 500 µs later), so windows of 1 µs to 2.5 s hold one to
  // three of them, and a tool call's competing messages fall in different windows: AC-21b's
  // winner must come from the newest window that holds one, with DO NOTHING keeping it. Windows
  // of 999.5 ms end exactly on an instant (from 4 s down to 3.0005 s), so a window's inclusive
  // lower edge is exercised too.
  it(`on ${STORES} random stores, in windows of one to three instants`, async () => {
    for (let seed = 1; seed <= STORES; seed++) {
      const r = prng(3300 + seed);
      db = await openTestDb('postgres', 'package');
      await seedRandomStore(db, r);
      const single = await singleStatementRows(db);
      const maxWindowMs = r.pick([0.001, 999.5, 2_500]);
      const windows: BackfillProgress[] = [];
      const report = await db.store().runMigrations({ backfillChunk: { maxWindowMs, pauseMs: 0 }, onBackfillProgress: (p) => windows.push(p) });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await backfilledRows(db), `seed ${seed}, windows of ${maxWindowMs} ms`).toEqual(single.rows);
      expect(windows.every((p) => p.phase === 'windows')).toBe(true);
      // Really in windows: one per instant at 1 µs (the last one activates), fewer when wider.
      const instants = (await db.query(`SELECT DISTINCT created_at FROM task_session_messages`)).length;
      if (maxWindowMs < 1) expect(windows.length, `seed ${seed}`).toBe(instants);
      else expect(windows.length, `seed ${seed}`).toBeGreaterThanOrEqual(Math.ceil(instants / 3));
      expect(windows.at(-1)?.messagesScanned).toBe((await db.query(`SELECT id FROM task_session_messages`)).length);
      const keys = await metaKeys(db);
      expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
      expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
      await db.close();
      db = undefined;
    }
  }, 120_000);
});
