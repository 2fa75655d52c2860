// Issue 17 item 7: the typed list functions return raw rows that differ by dialect (SQLite
// bigint, PostgreSQL decimal text), and toSubagentContextRow() — exported by each dialect's
// entry — turns one into exactly the row the store's listBySession returns, on both dialects.
// Run through the entries a host imports (src/sqlite/index.ts, src/postgres/index.ts).
import { afterEach, beforeEach, expect, it } from 'vitest';
import * as postgresEntry from '../src/postgres/index.js';
import * as sqliteEntry from '../src/sqlite/index.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession } from './helpers/seed-host-rows.js';

describeBothDialects('typed rows: raw, and toSubagentContextRow', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  /** The raw rows of the typed list statements, by session and by turn, as a host would read them. */
  async function rawRows(): Promise<{ bySession: unknown[]; byTurn: unknown[]; normalize: (row: never) => unknown }> {
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const handle = db.sqlite!;
      return {
        bySession: sqliteEntry.listSubagentContextsBySession.all({ sessionId: 's1' }, handle),
        byTurn: sqliteEntry.listSubagentContextsByTurn.all({ sessionId: 's1', turnId: 'turn-1' }, handle),
        normalize: sqliteEntry.toSubagentContextRow,
      };
    }
    const pool = db.pool!;
    return {
      bySession: await postgresEntry.listSubagentContextsBySession.run({ sessionId: 's1' }, pool),
      byTurn: await postgresEntry.listSubagentContextsByTurn.run({ sessionId: 's1', turnId: 'turn-1' }, pool),
      normalize: postgresEntry.toSubagentContextRow,
    };
  }

  it("a raw row is the driver's; its normalized row is listBySession's, NULL included", async () => {
    const store = db.store({ clock: steppingClock(1_785_000_000_123_456_789n) });
    const frame = { sessionId: 's1', taskId: 'task-1', turnId: 'turn-1', executionId: 'e1', toolStatus: 'completed' };
    expect(await store.recordFrame({ ...frame, toolCallId: 't1', payload: { is_async: true, total_tokens: 12_345, tool_use_count: 0 } })).toBe('persisted');
    expect(await store.recordFrame({ ...frame, toolCallId: 't2', payload: { total_tokens: 0, duration_ms: 61_234 } })).toBe('persisted');
    expect(await store.recordFrame({ ...frame, toolCallId: 't3', payload: {} })).toBe('persisted');

    const { bySession, byTurn, normalize } = await rawRows();
    expect(bySession).toHaveLength(3);
    const first = bySession[0] as Record<string, unknown>;
    // Raw, as each driver hands it over: the dialects differ (the reason the function exists).
    expect({ is_async: first.is_async, total_tokens: first.total_tokens, tool_use_count: first.tool_use_count }).toEqual(
      byDialect(dialect, {
        sqlite: { is_async: 1n, total_tokens: 12_345n, tool_use_count: 0n },
        postgres: { is_async: 1, total_tokens: '12345', tool_use_count: '0' },
      }),
    );
    if (byDialect(dialect, { sqlite: true, postgres: false })) expect(() => JSON.stringify(first)).toThrow(TypeError); // a raw SQLite row does not serialize

    const listed = await store.listBySession('s1');
    expect(bySession.map((r) => normalize(r as never))).toEqual(listed);
    expect(byTurn.map((r) => normalize(r as never))).toEqual(await store.listByTurn('s1', 'turn-1'));
    const [n1, , n3] = listed;
    expect(n1).toMatchObject({ is_async: true, total_tokens: 12_345, tool_use_count: 0 });
    expect(n3).toMatchObject({ is_async: false, total_tokens: null, tool_use_count: null, duration_ms: null });
    expect(JSON.stringify(normalize(bySession[0] as never))).toContain('"total_tokens":12345');
  });
});
