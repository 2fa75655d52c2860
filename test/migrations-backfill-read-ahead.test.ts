// Issue 32, SQLite's backfill read ahead of its transactions (src/migrations/backfill-stage.ts,
// src/migrations/backfill-step.ts): each phase-1 range's candidates, and each phase-2 chunk's
// rows, are computed into a temp table of the migrating connection outside any transaction, by
// a statement that takes no write lock; the transaction under the lock only keeps them. They
// are kept only if they are still that range's or chunk's: a VACUUM between the two (it may
// renumber rowids, and changes the schema version), or a session deleted there, has them
// computed again under the lock. PostgreSQL computes nothing ahead; the same host work between
// two of its transactions leaves its rows the single statement's as well.
import type { Database } from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import type { StoreContext } from '../src/dialect.js';
import type { MigrationDatabase, MigrationPrimitives } from '../src/migrations/migration-database.js';
import { runMigrationPass } from '../src/migrations/migration-pass.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import { ACTIVATION_KEYS, type BackfillChunkOptions, type MigrationReport } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys } from './helpers/migration-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession, seedCompetingToolCalls } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

/** Ranges of 5 rowids over 8 sessions of three tool calls (two messages each) and a chat message. */
const CHUNK: BackfillChunkOptions = { maxSessions: 2, maxStageRowids: 5, pauseMs: 0 };

const seed = (db: TestDb) => seedCompetingToolCalls(db, { sessions: 8, toolCalls: 3, chat: true });

/** Where each phase-1 range's candidates and each phase-2 chunk's rows were computed: ahead, outside any transaction, or under the lock. */
interface Reads {
  ahead: number;
  locked: number;
  rowsAhead: number;
  rowsLocked: number;
}

const noReads = (): Reads => ({ ahead: 0, locked: 0, rowsAhead: 0, rowsLocked: 0 });

/** Host work between a computation ahead and its transaction, on the same connection (the host's own code may run there). */
interface Hooks {
  afterRange?(n: number): void;
  afterRows?(n: number): void;
  /** Around every call outside the lock (the computations ahead, the progress figures, the final drops). */
  aroundUnlocked?: { before(): void; after(): void };
  /** Each range read (its rowids) and each chunk's rows computed (its sessions), ahead or under the lock, in order. */
  sizes?: { ranges: Array<['ahead' | 'locked', number]>; chunks: Array<['ahead' | 'locked', number]> };
  /** Every call outside the lock takes this much longer (a slow computation ahead). */
  slowUnlockedMs?: number;
}

/** The SQLite migration database, counting where ranges and chunks are computed and calling the hooks after the n-th of each computed ahead. */
function countingSqlite(db: Database, reads: Reads, hooks: Hooks): MigrationDatabase {
  const inner = createSqliteMigrationDatabase(db);
  const counted = (p: MigrationPrimitives, ahead: boolean): MigrationPrimitives => {
    const staging = p.staging!;
    return {
      ...p,
      staging: {
        ...staging,
        stageRange: (after, upTo) => {
          reads[ahead ? 'ahead' : 'locked']++;
          hooks.sizes?.ranges.push([ahead ? 'ahead' : 'locked', Number(upTo - after)]);
          return staging.stageRange(after, upTo);
        },
        computeRows: (chunk) => {
          reads[ahead ? 'rowsAhead' : 'rowsLocked']++;
          hooks.sizes?.chunks.push([ahead ? 'ahead' : 'locked', chunk.sessions.length]);
          return staging.computeRows(chunk);
        },
      },
      // Under the lock, a chunk computed there goes through insertBackfillRows: counted the same way.
      insertBackfillRows: (chunk) => {
        reads.rowsLocked++;
        hooks.sizes?.chunks.push(['locked', chunk.sessions.length]);
        return p.insertBackfillRows(chunk);
      },
    };
  };
  return {
    ...inner,
    locked: (body) => inner.locked((p) => body(counted(p, false))),
    unlocked: async (body) => {
      const [ranges, rows] = [reads.ahead, reads.rowsAhead];
      hooks.aroundUnlocked?.before();
      const result = await inner.unlocked((p) => body(counted(p, true))).finally(() => hooks.aroundUnlocked?.after());
      if (hooks.slowUnlockedMs) await new Promise((resolve) => setTimeout(resolve, hooks.slowUnlockedMs));
      if (reads.ahead > ranges) hooks.afterRange?.(reads.ahead);
      if (reads.rowsAhead > rows) hooks.afterRows?.(reads.rowsAhead);
      return result;
    },
  };
}

/**
 * SQLite through the counting database and its hooks; PostgreSQL, which computes nothing ahead,
 * with `postgresHostSql` run by the host between its first and second chunk instead.
 */
async function migrate(t: TestDb, reads: Reads, hooks: Hooks, postgresHostSql = 'VACUUM task_session_messages', chunk = CHUNK): Promise<MigrationReport> {
  const ctx: StoreContext = { dialect: t.dialect, clock: steppingClock(), logger: recordingLogger() };
  return byDialect(t.dialect, {
    sqlite: () => runMigrationPass(countingSqlite(t.sqlite!, reads, hooks), ctx, { backfillChunk: chunk }),
    postgres: () => {
      let hostWork: Promise<unknown> | undefined;
      return t
        .store()
        .runMigrations({
          backfillChunk: { ...CHUNK, pauseMs: 300, walk: 'sessions' },
          onBackfillProgress: (p) => {
            if (p.chunks === 1) hostWork = t.exec(postgresHostSql);
          },
        })
        .then(async (report) => (await hostWork, report));
    },
  })();
}

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
    // Work computed ahead is sized by the lock its transaction holds (a slow computation, a quick
    // keep: the next grows fourfold), and work done under the lock by the time it would take there
    // (computation included: about a quarter of that). So a computation found stale is done again
    // under the lock at the smaller size, and the walk goes on from there.
    const SIZED: BackfillChunkOptions = { targetMs: 50, pauseMs: 0 };
    const SLOW_MS = 40;

    it('SQLite: a chunk computed ahead and found stale is computed again under the lock at the lock’s own size, not the computation’s; the rows are the single statement’s', async () => {
      db = await openTestDb(dialect, 'package');
      const t = db;
      await seedCompetingToolCalls(t, { sessions: 160, toolCalls: 1 });
      const sessions = (t.sqlite!.prepare(`SELECT id FROM task_sessions ORDER BY id`).pluck().all() as string[]).slice(16);
      const sizes: NonNullable<Hooks['sizes']> = { ranges: [], chunks: [] };
      const reads = noReads();
      const report = await migrate(
        t,
        reads,
        {
          sizes,
          slowUnlockedMs: SLOW_MS,
          // After the second chunk was computed ahead: a session of it deleted (its sessions are no longer the same).
          afterRows: (n) =>
            n === 2 &&
            t.sqlite!.exec(`DELETE FROM task_session_messages WHERE task_session_id = '${sessions[2]}'; DELETE FROM task_sessions WHERE id = '${sessions[2]}'`),
        },
        undefined,
        SIZED,
      );
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      const migrated = await backfilledRows(t);
      await t.exec(`DELETE FROM task_session_subagents`);
      expect(migrated).toEqual((await singleStatementRows(t)).rows); // over the store as it now is
      expect(migrated).toHaveLength(159);
      // 16 sessions ahead, kept; then more ahead (up to 64), found stale; computed under the lock:
      // fewer, as many as the lock's own size; the next chunk under the lock too.
      const [first, second, third, fourth] = sizes.chunks;
      expect(first).toEqual(['ahead', 16]);
      expect(second[0]).toBe('ahead');
      expect(second[1]).toBeGreaterThan(16);
      expect(third[0]).toBe('locked');
      expect(third[1]).toBeLessThan(second[1]);
      expect(fourth[0]).toBe('locked');
    });

    it('SQLite: a phase-1 range read ahead and found stale is read again under the lock at the lock’s own size, not the read’s; the rows are the single statement’s', async () => {
      db = await openTestDb(dialect, 'package');
      const t = db;
      await seedCompetingToolCalls(t, { sessions: 40, toolCalls: 3, chat: true });
      // Rowids 10 000 apart: ranges of 65 536 rowids and more hold a few messages each.
      t.sqlite!.exec(`UPDATE task_session_messages SET rowid = rowid * 10000`);
      const reference = await singleStatementRows(t);
      const sizes: NonNullable<Hooks['sizes']> = { ranges: [], chunks: [] };
      const reads = noReads();
      const report = await migrate(
        t,
        reads,
        {
          sizes,
          slowUnlockedMs: SLOW_MS,
          // After the second range was read ahead: the schema version changed (as a VACUUM changes it).
          afterRange: (n) => n === 2 && t.sqlite!.exec(`CREATE TABLE vacuum_marker (x); DROP TABLE vacuum_marker;`),
        },
        undefined,
        SIZED,
      );
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await backfilledRows(t)).toEqual(reference.rows);
      const [first, second, third] = sizes.ranges;
      expect(first).toEqual(['ahead', 65_536]);
      expect(second[0]).toBe('ahead');
      expect(second[1]).toBeGreaterThan(65_536);
      expect(third[0]).toBe('locked');
      expect(third[1]).toBeLessThan(second[1]);
    });
  }
});
