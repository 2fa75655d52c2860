// The AC-24 backfill order, written once in src/migrations/backfill-step.ts, observed through
// each real database in one run: backfill_through is read BEFORE the first INSERT (and kept in
// kandev_meta, in a transaction of its own: the backfill runs in chunks, issues 32 and 34),
// capture_since is sampled AFTER the last INSERT completed, then backfill_through and
// capture_since are written, in the transaction of the last chunk: with one chunk, the one that
// inserted the rows; with several, after every chunk's transaction committed. (test/migrations-activation.test.ts proves
// each property on its own, and the all-or-nothing of the pair under injected failures.)
//
// How each fact is seen, without mocks:
//   - order: database triggers log every backfilled row and every key write as it happens, and
//     the clock logs its own reads into the same sequence;
//   - read before the INSERT: the INSERT's first row makes a trigger add a newer qualifying
//     message in the same transaction; a high-water mark read after the INSERT would name it;
//   - one transaction: SQLite — at each logged moment another connection is asked how many
//     backfilled rows are committed (none while the transaction that inserted them is open);
//     PostgreSQL — each logged row carries txid_current(), and the clock's read asks another
//     session the same question.
import { afterEach, describe, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { metaKeys } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { createLateMessageTrigger } from './helpers/injected-triggers.js';
import { postgresOrderLog, sqliteOrderLog, type OrderLog } from './helpers/backfill-order-log.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';

const { captureSince, backfillThrough } = ACTIVATION_KEYS;

describeBothDialects('runMigrations: the AC-24 backfill order', (dialect) => {
  let db: TestDb;
  let log: OrderLog | undefined;
  afterEach(async () => {
    log?.close();
    await db?.close();
  });

  it('one chunk: backfill_through read (and kept) → INSERT → capture_since sampled → backfill_through written → capture_since written, the last four in one transaction', async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    const sub = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { status: 'completed' } });
    await insertMessage(db, { id: 'm1', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00.000001'), metadata: sub('toolu_1') });
    await insertMessage(db, { id: 'm2', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:02.5'), metadata: sub('toolu_2') });
    await insertMessage(db, { id: 'm3', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 09:59:59'), metadata: sub('toolu_3') });
    await createLateMessageTrigger(db, hostTimestamp(dialect, '2026-08-02 00:00:00'));
    log = await byDialect(dialect, { sqlite: () => sqliteOrderLog(db), postgres: () => postgresOrderLog(db) })();

    expect((await db.store({ clock: log.clock }).runMigrations()).ok).toBe(true);

    const events = await log.events();
    const start = events.findIndex((e) => e.what === 'insert');
    const backfill = events.slice(start).filter((e) => e.what !== 'host microtask');
    expect(backfill.map((e) => e.what)).toEqual(['insert', 'insert', 'insert', 'clock', `key ${backfillThrough}`, `key ${captureSince}`]);
    expect(backfill.map((e) => e.inBackfillTransaction)).toEqual([true, true, true, true, true, true]);

    const keys = await metaKeys(db);
    expect(keys[captureSince]).toBe(formatKeyInstant(backfill[3].ns!)); // the read logged between the INSERT and the writes
    // Read before the INSERT: the late message exists, yet the mark is the newest message before it.
    expect(await db.query(`SELECT id FROM task_session_messages WHERE id = 'late'`)).toHaveLength(1);
    expect(keys[backfillThrough]).toBe('2026-08-01T10:00:02.500000000Z');
    expect(await db.query(`SELECT tool_call_id FROM task_session_subagents WHERE source = 'backfill' ORDER BY tool_call_id`)).toEqual([
      { tool_call_id: 'toolu_1' },
      { tool_call_id: 'toolu_2' },
      { tool_call_id: 'toolu_3' },
    ]);

    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      // SQLite only (better-sqlite3 cannot hold a transaction across an await): a microtask the
      // first backfilled row queued — as a host's pending promise would — runs after COMMIT,
      // never inside the transaction, so the body really ran without yielding.
      const microtask = events.findIndex((e) => e.what === 'host microtask');
      expect(microtask).toBeGreaterThan(events.findIndex((e) => e.what === `key ${captureSince}`));
      expect(events[microtask].inBackfillTransaction).toBe(false);
    }
  });

  it('in chunks: the mark kept before the first chunk, rows chunk by chunk, capture_since sampled after the last chunk committed, both keys in one transaction', async () => {
    db = await openTestDb(dialect, 'package');
    const sub = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { status: 'completed' } });
    for (const [i, s] of ['s1', 's2', 's3'].entries()) {
      await insertSession(db, s);
      await insertMessage(db, { id: `m${i}`, sessionId: s, createdAt: hostTimestamp(dialect, `2026-08-01 10:00:0${i}.25`), metadata: sub(`toolu_${i}`) });
    }
    await createLateMessageTrigger(db, hostTimestamp(dialect, '2026-08-02 00:00:00'));
    log = await byDialect(dialect, { sqlite: () => sqliteOrderLog(db), postgres: () => postgresOrderLog(db) })();

    // One session per chunk: three chunks of one row each, then the chunk that finds none left.
    // (PostgreSQL's window walk: the next test.)
    expect((await db.store({ clock: log.clock }).runMigrations({ backfillChunk: { maxSessions: 1, pauseMs: 0, walk: 'sessions' } })).ok).toBe(true);

    const events = (await log.events()).filter((e) => e.what !== 'host microtask');
    const start = events.findIndex((e) => e.what === `key ${BACKFILL_PROGRESS_KEYS.through}`);
    // SQLite first stages the candidates (src/migrations/backfill-stage.ts): its bound, cursor
    // and schema version written with the mark, then one range (every rowid fits the first) and its anchor,
    // in a transaction of its own, before any chunk's INSERT. PostgreSQL stages nothing.
    const stageKeys = new Set<string>(
      [BACKFILL_PROGRESS_KEYS.stageBound, BACKFILL_PROGRESS_KEYS.stageCursor, BACKFILL_PROGRESS_KEYS.stageSchema, BACKFILL_PROGRESS_KEYS.stageAnchor].map(
        (k) => `key ${k}`,
      ),
    );
    const staging = events.slice(start).filter((e) => stageKeys.has(e.what));
    expect(staging.map((e) => e.what)).toEqual(
      byDialect(dialect, {
        sqlite: [
          `key ${BACKFILL_PROGRESS_KEYS.stageCursor}`,
          `key ${BACKFILL_PROGRESS_KEYS.stageBound}`,
          `key ${BACKFILL_PROGRESS_KEYS.stageSchema}`,
          `key ${BACKFILL_PROGRESS_KEYS.stageAnchor}`,
        ],
        postgres: [],
      }),
    );
    const backfill = events.slice(start).filter((e) => !stageKeys.has(e.what));
    if (dialect === 'sqlite') {
      expect(staging[0].tx).toBe(backfill[0].tx); // with the mark
      expect(staging[1].tx).toBe(backfill[0].tx);
      expect(staging[2].tx).toBe(backfill[0].tx);
      expect(staging[3].tx).not.toBe(backfill[0].tx); // the range's own transaction
      expect(staging[3].tx).not.toBe(backfill[1].tx); // before the first chunk's
      expect(staging[3].committedRows).toBe(0); // no row written yet
    }
    expect(backfill.map((e) => e.what)).toEqual([
      `key ${BACKFILL_PROGRESS_KEYS.through}`, // the mark, kept before any chunk
      'insert',
      `key ${BACKFILL_PROGRESS_KEYS.cursor}`, // chunk 1 (later chunks update the cursor)
      'insert', // chunk 2
      'insert', // chunk 3
      'clock',
      `key ${backfillThrough}`,
      `key ${captureSince}`,
    ]);
    const [mark, insert1, cursor, insert2, insert3, clock, through, capture] = backfill;
    // Each chunk its own transaction, the mark's before all of them.
    expect(new Set([mark.tx, insert1.tx, insert2.tx, insert3.tx]).size).toBe(4);
    expect(cursor.tx).toBe(insert1.tx);
    // capture_since is sampled when every chunk has committed, and before either key is
    // written; both keys are written in one transaction, after every chunk's.
    expect(clock.committedRows).toBe(3);
    expect(through.tx).toBe(capture.tx);
    expect(new Set([insert1.tx, insert2.tx, insert3.tx, through.tx]).size).toBe(4);

    const keys = await metaKeys(db);
    expect(keys[captureSince]).toBe(formatKeyInstant(clock.ns!));
    // Read before the first INSERT: the late message exists, yet the mark is the newest before it.
    expect(await db.query(`SELECT id FROM task_session_messages WHERE id = 'late'`)).toHaveLength(1);
    expect(keys[backfillThrough]).toBe('2026-08-01T10:00:02.250000000Z');
    expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
  });
});

describe('runMigrations: the AC-24 backfill order, in windows of created_at (issue 32 item 5) [postgres]', () => {
  let db: TestDb;
  let log: OrderLog | undefined;
  afterEach(async () => {
    log?.close();
    await db?.close();
  });

  it('the mark kept before the first window, rows window by window, newest first; the last window samples capture_since after its INSERT and writes both keys in its transaction', async () => {
    db = await openTestDb('postgres', 'package');
    const sub = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { status: 'completed' } });
    for (const [i, s] of ['s1', 's2', 's3'].entries()) {
      await insertSession(db, s);
      await insertMessage(db, { id: `m${i}`, sessionId: s, createdAt: hostTimestamp('postgres', `2026-08-01 10:00:0${i}.25`), metadata: sub(`toolu_${i}`) });
    }
    await createLateMessageTrigger(db, hostTimestamp('postgres', '2026-08-02 00:00:00'));
    log = await postgresOrderLog(db);

    // Windows of 500 ms: one message each, newest first; nothing is below the third, so it activates.
    expect((await db.store({ clock: log.clock }).runMigrations({ backfillChunk: { maxWindowMs: 500, pauseMs: 0 } })).ok).toBe(true);

    const events = (await log.events()).filter((e) => e.what !== 'host microtask');
    const backfill = events.slice(events.findIndex((e) => e.what === `key ${BACKFILL_PROGRESS_KEYS.through}`));
    expect(backfill.map((e) => e.what)).toEqual([
      `key ${BACKFILL_PROGRESS_KEYS.through}`, // the mark, kept before any window
      'insert',
      `key ${BACKFILL_PROGRESS_KEYS.windowTop}`, // window 1 (later windows update it)
      'insert', // window 2
      'insert', // window 3, the last
      'clock',
      `key ${backfillThrough}`,
      `key ${captureSince}`,
    ]);
    const [mark, insert1, top, insert2, insert3, clock, through, capture] = backfill;
    expect(new Set([mark.tx, insert1.tx, insert2.tx, insert3.tx]).size).toBe(4);
    expect(top.tx).toBe(insert1.tx);
    // The last window's INSERT, the sample and both keys: one transaction, after the others committed.
    expect(clock.committedRows).toBe(2);
    expect([through.tx, capture.tx]).toEqual([insert3.tx, insert3.tx]);
    // Newest first: the windows wrote toolu_2, then toolu_1, then toolu_0.
    const rows = await db.query<{ tool_call_id: string; observed_at: string }>(
      `SELECT tool_call_id FROM task_session_subagents WHERE source = 'backfill' ORDER BY xmin::text::bigint, tool_call_id`,
    );
    expect(rows.map((r) => r.tool_call_id)).toEqual(['toolu_2', 'toolu_1', 'toolu_0']);

    const keys = await metaKeys(db);
    expect(keys[captureSince]).toBe(formatKeyInstant(clock.ns!));
    expect(keys[backfillThrough]).toBe('2026-08-01T10:00:02.250000000Z');
    expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
  });
});
