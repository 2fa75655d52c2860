// Issue 32, SQLite's backfill read ahead of its transactions (src/migrations/backfill-stage.ts,
// src/migrations/backfill-step.ts): each phase-1 range's candidates, and each phase-2 chunk's
// rows, are computed into a temp table of the migrating connection outside any transaction, by
// a statement that takes no write lock; the transaction under the lock only keeps them. They
// are kept only if they are still that range's or chunk's: a VACUUM between the two (it may
// renumber rowids, and changes the schema version), or a session deleted there, has them
// computed again under the lock. PostgreSQL computes nothing ahead; the same host work between
// two of its transactions leaves its rows the single statement's as well.
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { migrate, noReads } from './helpers/counting-migration-db.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertSession, seedCompetingToolCalls } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const seed = (db: TestDb) => seedCompetingToolCalls(db, { sessions: 8, toolCalls: 3, chat: true });

describeBothDialects('runMigrations: phase 1 read ahead of its transactions (issue 32)', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('each range and each chunk is computed once, outside the lock, and its transaction keeps it: the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seed(t);
    const reference = await singleStatementRows(t);
    const reads = noReads();
    const report = await migrate(t, reads, {});
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(reference.rows);
    expect(Object.keys(await metaKeys(t)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    // 56 messages in ranges of 5 rowids: 12 ranges; 8 sessions in chunks of 2: 4 chunks. Each
    // computed once, none under the lock.
    expect(reads).toEqual(byDialect(dialect, { sqlite: { ahead: 12, locked: 0, rowsAhead: 4, rowsLocked: 0 }, postgres: noReads() }));
    if (dialect === 'sqlite') {
      // The temp tables are gone with the walk; the host's connection keeps no trace of them.
      expect(t.sqlite!.prepare(`SELECT name FROM sqlite_temp_master WHERE name LIKE 'subagent_context_backfill_%'`).all()).toEqual([]);
    }
  });

  it('a VACUUM between a read ahead and its transaction (rowids renumbered, the schema version changed): that range is read again under the lock, the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seed(t);
    const reads = noReads();
    const report = await migrate(t, reads, {
      afterRange: (n) => {
        if (n !== 3) return;
        // As a VACUUM that closes gaps would, above the cursor only (below it, phase 1's anchor
        // check would start the walk over): the chat messages there deleted, the rowids after the
        // cursor renumbered in order with none left between (messages after the range read move
        // down into it), and the schema version changed. (SQLite 3.53's VACUUM kept rowids when
        // tried; SQLite documents that it may renumber them.)
        const cursor = t.sqlite!.prepare(`SELECT value FROM kandev_meta WHERE key = 'subagent_context_backfill_stage_cursor'`).pluck().get() as string;
        t.sqlite!.exec(`DELETE FROM task_session_messages WHERE id LIKE '%-chat' AND rowid > ${cursor};
        CREATE TEMP TABLE renumber AS SELECT rowid AS old, ${cursor} + row_number() OVER (ORDER BY rowid) AS new FROM task_session_messages WHERE rowid > ${cursor};
        UPDATE task_session_messages SET rowid = -rowid WHERE rowid > ${cursor};
        UPDATE task_session_messages SET rowid = (SELECT r.new FROM renumber AS r WHERE r.old = -task_session_messages.rowid) WHERE rowid < 0;
        DROP TABLE renumber;
        CREATE TABLE vacuum_marker (x); DROP TABLE vacuum_marker;`);
      },
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
    expect(migrated).toHaveLength(8 * 3);
    // SQLite (10 ranges once the chat messages are gone): the third read again under the lock, and the fourth read there too (after a
    // read ahead not kept, the next range is read under the lock: two migrators would otherwise
    // discard each other's); every other range read ahead only.
    expect([reads.ahead, reads.locked]).toEqual(byDialect(dialect, { sqlite: [9, 2], postgres: [0, 0] }));
  });

  it('a session deleted, and another message changed, between a chunk computed ahead and its transaction: that chunk is computed again under the lock, the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seed(t);
    const changes = [
      `DELETE FROM task_session_messages WHERE task_session_id = 's2'`,
      `DELETE FROM task_sessions WHERE id = 's2'`,
      `UPDATE task_session_messages SET metadata = replace(metadata, '"v1"', '"rewritten"') WHERE id = 's3-t1-v1'`,
    ];
    const reads = noReads();
    // SQLite: after the second chunk's rows (sessions s2 and s3) were computed ahead. PostgreSQL:
    // after the first chunk (s0, s1), before the second.
    const report = await migrate(t, reads, { afterRows: (n) => n === 2 && t.sqlite!.exec(changes.join(';\n')) }, changes.join(';\n'));
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
    expect(migrated.filter((r) => r.task_session_id === 's2')).toEqual([]);
    expect(migrated.find((r) => r.task_session_id === 's3' && r.tool_call_id === 'toolu_1')?.description).toBe('rewritten');
    // SQLite: the second chunk computed again under the lock (its sessions are no longer the same),
    // and the third computed there (after a chunk not kept); the fourth ahead again.
    expect([reads.rowsAhead, reads.rowsLocked]).toEqual(byDialect(dialect, { sqlite: [3, 2], postgres: [0, 0] }));
  });

  if (dialect === 'sqlite') {
    it('SQLite: the host’s own transaction open on the shared connection around each computation: nothing is computed ahead (its rollback would undo the work), the rows are the single statement’s', async () => {
      db = await openTestDb(dialect, 'package');
      const t = db;
      await seed(t);
      const reference = await singleStatementRows(t);
      const reads = noReads();
      // The host begins a transaction of its own before each call outside the lock and rolls it back after.
      const report = await migrate(t, reads, { aroundUnlocked: { before: () => t.sqlite!.exec('BEGIN'), after: () => t.sqlite!.exec('ROLLBACK') } });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await backfilledRows(t)).toEqual(reference.rows);
      expect(reads).toEqual({ ahead: 0, locked: 12, rowsAhead: 0, rowsLocked: 4 });
    });

    it('SQLite: a session deleted and made again under the same id, and a winning message deleted, between a chunk computed ahead and its transaction: the chunk is computed again, the runner-up wins, the rows are the single statement’s', async () => {
      db = await openTestDb(dialect, 'package');
      const t = db;
      await seed(t);
      const reads = noReads();
      const report = await migrate(t, reads, {
        // After the second chunk's rows (sessions s2 and s3) were computed ahead: the same two sessions, other messages.
        afterRows: (n) => {
          if (n !== 2) return;
          t.sqlite!.exec(`DELETE FROM task_session_messages WHERE task_session_id = 's2'; DELETE FROM task_sessions WHERE id = 's2';
            DELETE FROM task_session_messages WHERE id = 's3-t1-v1'`);
          void insertSession(t, 's2');
        },
      });
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      const migrated = await backfilledRows(t);
      await t.exec(`DELETE FROM task_session_subagents`);
      expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
      expect(migrated.filter((r) => r.task_session_id === 's2')).toEqual([]);
      expect(migrated.find((r) => r.task_session_id === 's3' && r.tool_call_id === 'toolu_1')?.description).toBe('v0');
      expect([reads.rowsAhead, reads.rowsLocked]).toEqual([3, 2]); // the second chunk again, the third under the lock
    });
  }
});
