// A host whose DDL spells its table names in another case (`CREATE TABLE Task_Sessions`). SQLite
// resolves a name in any ASCII case, so the host's statements and the package's reach those
// tables; but the package's probes compared sqlite_schema's names as written, so such a host was
// told "missing host tables task_sessions, task_session_messages: this is not the host's
// database", on every boot, and its own KANDEV_META read as absent (a review, 2026-12). The
// probes now compare names as SQLite resolves them (COLLATE NOCASE). On PostgreSQL an unquoted
// name folds to lower case, so the same DDL names the same tables; a quoted "Task_Sessions" is
// another table, which no unquoted statement reaches (docs/host-tables.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { backfilledRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const CLOCK = 1_790_000_000_000_000_000n; // 2026-09-21, after the history below

/** The host's DDL as shipped, its two table names spelled Task_Sessions and Task_Session_Messages. */
function mixedCaseHostDdl(dialect: TestDb['dialect']): string {
  return readFileSync(join(import.meta.dirname, '..', 'schema', 'host', dialect, '001_host_tables.sql'), 'utf8')
    .replace(/\btask_sessions\b/g, 'Task_Sessions')
    .replace(/\btask_session_messages\b/g, 'Task_Session_Messages');
}

describeBothDialects('host tables named in another case', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await db.exec('DROP TABLE task_session_messages');
    await db.exec('DROP TABLE task_sessions');
    await db.exec(mixedCaseHostDdl(dialect));
    await db.exec(`CREATE TABLE KANDEV_META (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '')`);
    await db.exec(`INSERT INTO KANDEV_META (key, value) VALUES ('host_setting', 'kept')`);
  });
  afterEach(async () => db.close());

  it('migrate, backfill, live writes, health and the host index all find them', async () => {
    const tables = byDialect(dialect, {
      sqlite: `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`,
      postgres: `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    });
    // As the host wrote them on SQLite; folded on PostgreSQL.
    expect((await db.query<{ name: string }>(tables)).map((n) => n.name)).toEqual(
      byDialect(dialect, {
        sqlite: ['KANDEV_META', 'Task_Session_Messages', 'Task_Sessions'],
        postgres: ['kandev_meta', 'task_session_messages', 'task_sessions'],
      }),
    );
    for (const s of ['s1', 's2']) await insertSession(db, s);
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'toolu_1', createdAt: '2026-08-01 10:00:00' });
    await insertSubagentMessage(db, { id: 'm2', sessionId: 's2', toolCallId: 'toolu_2', createdAt: '2026-08-02 09:30:00' });

    const store = db.store({ clock: steppingClock(CLOCK) });
    const report = await store.runMigrations({ backfillChunk: { pauseMs: 0 } });
    expect(report.steps.filter((s) => s.status === 'failed')).toEqual([]);
    expect(report.ok).toBe(true);
    expect((await backfilledRows(db)).map((r) => [r.task_session_id, r.tool_call_id])).toEqual([
      ['s1', 'toolu_1'],
      ['s2', 'toolu_2'],
    ]);
    const keys = await metaKeys(db);
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe('2026-08-02T09:30:00.000000000Z');
    expect(keys.host_setting).toBe('kept'); // the host's own table, written into, not replaced

    // After activation the host writes two subagent messages; the live path records one.
    await insertSubagentMessage(db, { id: 'm-live', sessionId: 's1', toolCallId: 'toolu_live', createdAt: '2026-09-22 10:00:00' });
    await insertSubagentMessage(db, { id: 'm-missed', sessionId: 's2', toolCallId: 'toolu_missed', createdAt: '2026-09-22 10:00:01' });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_live', toolStatus: 'completed', payload: {} })).toBe('persisted');
    expect(await store.checkHealth()).toMatchObject({ verdict: 'shortfall', shortfall: 1, excess: 0 });

    expect(await store.ensureHostIndex()).toMatchObject({ outcome: 'created' });
    expect(await store.ensureHostIndex()).toMatchObject({ outcome: 'present' });
    // A second boot finds everything in place.
    expect((await store.runMigrations()).steps.filter((s) => s.status === 'failed')).toEqual([]);
  });
});
