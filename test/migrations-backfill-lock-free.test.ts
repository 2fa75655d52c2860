// Issue 32, why SQLite's backfill computes its work ahead of its transactions
// (src/migrations/backfill-stage.ts, src/migrations/backfill-step.ts): a statement that writes
// only the migrating connection's temp schema takes no write lock on the host's database, so a
// host writer on another connection commits while it runs. Shown from inside the package's own
// statements: json_extract, which both run for the messages they judge, is replaced on the
// migrating connection by a function that reads the same value and first writes through a
// second connection that never waits (busy_timeout 0). Run outside any transaction, every such
// write commits; run under the lock, as the work did before, every one is refused.
// SQLite only: PostgreSQL's host writes never wait for the backfill's lock (its chunks lock only
// the keys of the sessions they write; test/migrations-backfill-busy-host.test.ts times both).
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { awaited, type Flow } from '../src/migrations/flow.js';
import type { MigrationPrimitives } from '../src/migrations/migration-database.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

/** json_extract for the paths the statements use ('$.a.b'): the value as SQLite returns it. */
function extract(doc: unknown, path: unknown): unknown {
  if (typeof doc !== 'string' || typeof path !== 'string' || !/^\$(\.\w+)+$/.test(path))
    throw new Error(`json_extract(${String(path)}): not a path this test reads`);
  let value: unknown = JSON.parse(doc);
  for (const key of path.slice(2).split('.'))
    value = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return typeof value === 'object' ? JSON.stringify(value) : value;
}

describe('SQLite: the backfill work computed ahead takes no write lock (issue 32)', () => {
  let db: TestDb | undefined;
  let host: Database.Database | undefined;
  afterEach(async () => {
    host?.close();
    await db?.close();
    db = host = undefined;
  });

  it('a host writer on another connection commits while phase 1 reads a range and phase 2 computes a chunk outside the lock; under the lock it is refused', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    for (let s = 0; s < 3; s++) {
      await insertSession(t, `s${s}`);
      for (let v = 0; v < 2; v++)
        await insertMessage(t, {
          id: `s${s}-v${v}`,
          sessionId: `s${s}`,
          createdAt: `2026-08-01 10:0${v}:00`,
          metadata: subagentMetadata({ toolCallId: 'toolu_1', toolStatus: 'completed', subagent: { description: `v${v}` } }),
        });
    }
    host = new Database(t.location);
    host.pragma('busy_timeout = 0');
    const touch = host.prepare(`UPDATE task_sessions SET task_id = task_id WHERE id = 's0'`);
    const writes = { committed: 0, refused: 0 };
    t.sqlite!.function('json_extract', (doc: unknown, path: unknown) => {
      try {
        touch.run();
        writes.committed++;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
        writes.refused++;
      }
      return extract(doc, path);
    });
    const migration = createSqliteMigrationDatabase(t.sqlite!);
    const counted = async (where: 'ahead' | 'locked', body: (p: MigrationPrimitives) => Flow<number>) => {
      const before = { ...writes };
      const n = await (where === 'ahead' ? migration.unlocked(body) : migration.locked(body));
      return { n, committed: writes.committed - before.committed, refused: writes.refused - before.refused };
    };
    const readRange = function* (p: MigrationPrimitives): Flow<number> {
      yield* awaited(p.staging!.createRange());
      yield* awaited(p.staging!.clearRange());
      return yield* awaited(p.staging!.stageRange(-(2n ** 63n), 2n ** 62n));
    };
    const computeChunk = (p: MigrationPrimitives) => awaited(p.staging!.computeRows({ after: '', sessions: ['s0', 's1', 's2'] }));

    // Phase 1: the six messages read into the range table, each judged by json_extract twice
    // (its normalized.kind, then the tool_call_id staged with it).
    expect(await counted('ahead', readRange)).toEqual({ n: 6, committed: 12, refused: 0 });
    expect(await counted('locked', readRange)).toEqual({ n: 6, committed: 0, refused: 12 });
    await migration.locked(function* (p) {
      yield* awaited(p.staging!.createStage());
      return yield* awaited(p.staging!.keepRange());
    });
    // Phase 2: one row per session (its newer message wins), computed into the rows table.
    const ahead = await counted('ahead', computeChunk);
    expect(ahead.n).toBe(3);
    expect(ahead.committed).toBeGreaterThan(0);
    expect(ahead.refused).toBe(0);
    const locked = await counted('locked', computeChunk);
    expect(locked.n).toBe(3);
    expect(locked.committed).toBe(0);
    expect(locked.refused).toBeGreaterThan(0);
  });
});
