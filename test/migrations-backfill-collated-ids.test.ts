// Host id columns declared with a collation (a review, 2026-12): with `task_sessions.id TEXT
// COLLATE NOCASE` the session walk ordered and cut its chunks in NOCASE order while each chunk
// ranged the staging table in BINARY order, so a session could fall between two chunks and was
// never backfilled (silent and permanent: the store activates). The walk, its count and AC-21b's
// ranking now compare host ids as bytes, whatever the column's collation: the chunked backfill
// writes what the single statement writes, every session included. SQLite alone: a PostgreSQL
// chunk is the set of sessions it locked, never a key range.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { commitFromAnotherConnection } from './helpers/other-connection.js';

const HOST_DDL = readFileSync('schema/host/sqlite/001_host_tables.sql', 'utf8');
const SESSIONS = ['a-session', 'B-session', 'c-session', 'D-session']; // NOCASE's last, D, is not the greatest in byte order

let db: TestDb | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/** The host tables with both id columns (and, unless told, the messages' session column) declared COLLATE NOCASE; migrated, the backfill deferred. */
async function nocaseHost(messageSessionColumn = true): Promise<TestDb> {
  const d = await openTestDb('sqlite');
  const ids = HOST_DDL.replace(/(\n\s+id\s+TEXT) PRIMARY KEY/g, '$1 COLLATE NOCASE PRIMARY KEY');
  const ddl = messageSessionColumn ? ids.replace(/(\n\s+task_session_id\s+TEXT)/, '$1 COLLATE NOCASE') : ids;
  expect(ddl.match(/COLLATE NOCASE/g)).toHaveLength(messageSessionColumn ? 3 : 2);
  d.sqlite!.pragma('foreign_keys = OFF');
  await d.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions;');
  await d.exec(ddl);
  d.sqlite!.pragma('foreign_keys = ON');
  await d.store().runMigrations({ backfill: 'defer' });
  return d;
}

const meta = (toolCallId: string, description: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { description } });

describe('runMigrations: host ids declared COLLATE NOCASE [sqlite]', () => {
  it.each([1, 2, 100])('every session is backfilled, chunks of %i session(s), as the single statement writes them', async (maxSessions) => {
    db = await nocaseHost();
    for (const s of SESSIONS) {
      await insertSession(db, s);
      await insertMessage(db, { id: `m-${s}`, sessionId: s, createdAt: '2026-08-01 10:00:00+00:00', metadata: meta('toolu_1', s) });
    }
    const single = await singleStatementRows(db);
    expect(single.rows.map((r) => r.task_session_id)).toEqual([...SESSIONS].sort());
    const report = await db.store({ clock: steppingClock() }).runMigrations({ backfillChunk: { maxSessions, pauseMs: 0 } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(db)).toEqual(single.rows);
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
  });

  it("task_sessions.id alone NOCASE (the messages' session column as shipped): every session is backfilled", async () => {
    db = await nocaseHost(false);
    for (const s of SESSIONS) {
      await insertSession(db, s);
      await insertMessage(db, { id: `m-${s}`, sessionId: s, createdAt: '2026-08-01 10:00:00+00:00', metadata: meta('toolu_1', s) });
    }
    for (const maxSessions of [1, 2, 100]) {
      const report = await db.store({ clock: steppingClock() }).runMigrations({ backfillChunk: { maxSessions, pauseMs: 0 } });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect((await backfilledRows(db)).map((r) => r.task_session_id)).toEqual([...SESSIONS].sort());
      await db.exec(`DELETE FROM task_session_subagents; DELETE FROM kandev_meta WHERE key <> '${ACTIVATION_KEYS.executionSince}'`);
    }
  });

  // A message whose session id matches a session only in the column's collation ('a1' for
  // 'A1', which the host's NOCASE foreign key accepts): it sorted after the walk's last key, so
  // no chunk wrote it, while the mark counted it: activated, its subagent missing for good (a
  // review, 2026-12). Sessions are matched by their bytes everywhere now: no row, not in the mark.
  it.each([1, 100])("a message of session 'a1' where the session is 'A1' is neither a row nor in the mark (chunks of %i)", async (maxSessions) => {
    db = await nocaseHost();
    await insertSession(db, 'A1');
    await insertMessage(db, { id: 'm0', sessionId: 'A1', createdAt: '2026-08-01 10:00:00+00:00', metadata: meta('toolu_0', 'exact') });
    await insertMessage(db, { id: 'm1', sessionId: 'a1', createdAt: '2026-08-01 11:00:00+00:00', metadata: meta('toolu_1', 'case') });
    expect(await db.query('PRAGMA foreign_key_check')).toEqual([]); // the host's own key accepts it
    const single = await singleStatementRows(db);
    const report = await db.store({ clock: steppingClock() }).runMigrations({ backfillChunk: { maxSessions, pauseMs: 0 } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const rows = await backfilledRows(db);
    expect(rows.map((r) => [r.task_session_id, r.tool_call_id])).toEqual([['A1', 'toolu_0']]);
    expect(rows).toEqual(single.rows);
    expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe('2026-08-01T10:00:00.000000000Z');
  });

  it.each(['staged columns', 'read again'] as const)(
    'equal instants: the greatest message id in byte order wins (m-a over m-B), not in the column collation (%s)',
    async (way) => {
      db = await nocaseHost();
      const t = db;
      await insertSession(t, 's1');
      for (const id of ['m-a', 'm-B']) await insertMessage(t, { id, sessionId: 's1', createdAt: '2026-08-01 10:00:00+00:00', metadata: meta('toolu_1', id) });
      const single = await singleStatementRows(t);
      expect(single.rows.map((r) => r.description)).toEqual(['m-a']);
      const report = await t.store({ clock: steppingClock() }).runMigrations({
        backfillChunk: { pauseMs: 0 },
        // A commit after staging makes the chunk read each message again.
        onBackfillProgress: (p) => void (way === 'read again' && p.phase === 'stage' && commitFromAnotherConnection(t.location)),
      });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await backfilledRows(t)).toEqual(single.rows);
    },
  );
});
