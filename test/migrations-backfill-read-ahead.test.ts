// Issue 32, SQLite's phase 1 read ahead (src/migrations/backfill-stage.ts): each rowid range's
// candidates are read into the connection's temp range table outside any transaction, a
// statement that takes no write lock, and the range's transaction under the lock only keeps
// them. They are kept only if they are still that range's: a VACUUM between the read and the
// transaction (it may renumber rowids, and changes the schema version) has the range read
// again under the lock. PostgreSQL has no phase 1; the same host work between two of its
// transactions (a VACUUM of the messages) leaves its rows the single statement's as well.
import type { Database } from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import type { StoreContext } from '../src/dialect.js';
import type { MigrationDatabase, MigrationPrimitives } from '../src/migrations/migration-database.js';
import { runMigrationPass } from '../src/migrations/migration-pass.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import { ACTIVATION_KEYS, type BackfillChunkOptions, type MigrationReport } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertChatMessage, insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

/** Ranges of 5 rowids over 8 sessions of three tool calls (two messages each) and a chat message. */
const CHUNK: BackfillChunkOptions = { maxSessions: 2, maxStageRowids: 5, pauseMs: 0 };

async function seed(db: TestDb): Promise<void> {
  for (let s = 0; s < 8; s++) {
    await insertSession(db, `s${s}`);
    for (let t = 1; t <= 3; t++)
      for (let v = 0; v < 2; v++)
        await insertMessage(db, {
          id: `s${s}-t${t}-v${v}`,
          sessionId: `s${s}`,
          createdAt: hostTimestamp(db.dialect, `2026-08-01 10:0${v}:0${t}`),
          metadata: subagentMetadata({ toolCallId: `toolu_${t}`, toolStatus: 'completed', subagent: { description: `v${v}`, total_tokens: 10 + v } }),
        });
    await insertChatMessage(db, `s${s}-chat`, `s${s}`, hostTimestamp(db.dialect, '2026-08-01 10:05:00'));
  }
}

/** Where each range's candidates were read: outside any transaction, or under the lock. */
interface Reads {
  ahead: number;
  locked: number;
}

/**
 * The SQLite migration database, counting the range reads by where they run, and calling
 * `afterReadAhead` (on the same connection, between the read and the range's transaction, as
 * the host's own code may run there) after the `n`-th read ahead.
 */
function countingSqlite(db: Database, reads: Reads, afterReadAhead: (n: number) => void): MigrationDatabase {
  const inner = createSqliteMigrationDatabase(db);
  const counted = (p: MigrationPrimitives, where: keyof Reads): MigrationPrimitives => {
    const staging = p.staging!;
    return {
      ...p,
      staging: {
        ...staging,
        stageRange: (after, upTo) => {
          reads[where]++;
          return staging.stageRange(after, upTo);
        },
      },
    };
  };
  return {
    ...inner,
    locked: (body) => inner.locked((p) => body(counted(p, 'locked'))),
    unlocked: async (body) => {
      const before = reads.ahead;
      const result = await inner.unlocked((p) => body(counted(p, 'ahead')));
      if (reads.ahead > before) afterReadAhead(reads.ahead);
      return result;
    },
  };
}

async function migrate(t: TestDb, reads: Reads, afterReadAhead: (n: number) => void): Promise<MigrationReport> {
  const ctx: StoreContext = { dialect: t.dialect, clock: steppingClock(), logger: recordingLogger() };
  return byDialect(t.dialect, {
    sqlite: () => runMigrationPass(countingSqlite(t.sqlite!, reads, afterReadAhead), ctx, { backfillChunk: CHUNK }),
    // No read ahead: the host's VACUUM comes between two chunks instead.
    postgres: () => {
      let vacuum: Promise<unknown> | undefined;
      return t
        .store()
        .runMigrations({
          backfillChunk: { ...CHUNK, pauseMs: 300, walk: 'sessions' },
          onBackfillProgress: (p) => {
            if (p.chunks === 1) vacuum = t.exec('VACUUM task_session_messages');
          },
        })
        .then(async (report) => (await vacuum, report));
    },
  })();
}

describeBothDialects('runMigrations: phase 1 read ahead of its transactions (issue 32)', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('each range is read once, outside the lock, and its transaction keeps what was read: the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seed(t);
    const reference = await singleStatementRows(t);
    const reads: Reads = { ahead: 0, locked: 0 };
    const report = await migrate(t, reads, () => undefined);
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(reference.rows);
    expect(Object.keys(await metaKeys(t)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    // 56 messages in ranges of 5 rowids: 12 ranges, each read once, none under the lock.
    expect(reads).toEqual(byDialect(dialect, { sqlite: { ahead: 12, locked: 0 }, postgres: { ahead: 0, locked: 0 } }));
    if (dialect === 'sqlite') {
      // The temp range table is gone with phase 1; the host's connection keeps no trace of it.
      expect(t.sqlite!.prepare(`SELECT name FROM sqlite_temp_master WHERE name = 'subagent_context_backfill_range'`).all()).toEqual([]);
    }
  });

  it('a VACUUM between a read ahead and its transaction (rowids renumbered, the schema version changed): that range is read again under the lock, the rows are the single statement’s', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await seed(t);
    const reads: Reads = { ahead: 0, locked: 0 };
    const report = await migrate(t, reads, (n) => {
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
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const migrated = await backfilledRows(t);
    await t.exec(`DELETE FROM task_session_subagents`);
    expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
    expect(migrated).toHaveLength(8 * 3);
    // SQLite: the third range read again under the lock, once; every other range read ahead only.
    expect(reads.locked).toBe(byDialect(dialect, { sqlite: 1, postgres: 0 }));
  });
});
