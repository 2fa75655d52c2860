// SQLite's migration database, counting where each phase-1 range and each phase-2 chunk is
// computed (ahead, outside any transaction, or under the lock), and calling a test's hooks between
// a computation ahead and its transaction (test/migrations-backfill-read-ahead.test.ts,
// test/migrations-backfill-sized-by-lock.test.ts).
import type { Database } from 'better-sqlite3';
import type { StoreContext } from '../../src/dialect.js';
import type { MigrationDatabase, MigrationPrimitives } from '../../src/migrations/migration-database.js';
import { runMigrationPass } from '../../src/migrations/migration-pass.js';
import { createSqliteMigrationDatabase } from '../../src/sqlite/migrations.js';
import type { BackfillChunkOptions, MigrationReport } from '../../src/index.js';
import { byDialect } from './by-dialect.js';
import { steppingClock } from './clock.js';
import { recordingLogger } from './recording-logger.js';
import type { TestDb } from './test-db.js';

/** Ranges of 5 rowids over 8 sessions of three tool calls (two messages each) and a chat message. */
export const CHUNK: BackfillChunkOptions = { maxSessions: 2, maxStageRowids: 5, pauseMs: 0 };

/** Where each phase-1 range's candidates and each phase-2 chunk's rows were computed: ahead, outside any transaction, or under the lock. */
export interface Reads {
  ahead: number;
  locked: number;
  rowsAhead: number;
  rowsLocked: number;
}

export const noReads = (): Reads => ({ ahead: 0, locked: 0, rowsAhead: 0, rowsLocked: 0 });

/** Host work between a computation ahead and its transaction, on the same connection (the host's own code may run there). */
export interface Hooks {
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
export function countingSqlite(db: Database, reads: Reads, hooks: Hooks): MigrationDatabase {
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
export async function migrate(
  t: TestDb,
  reads: Reads,
  hooks: Hooks,
  postgresHostSql = 'VACUUM task_session_messages',
  chunk = CHUNK,
): Promise<MigrationReport> {
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
