// task_session_subagents' column list has one source, the fresh DDL
// (schema/<dialect>/002_task_session_subagents.sql): codegen reads it into
// generated/<dialect>/schema.ts, the list statements select it through the subagent_row
// fragment (derived from the same DDL), the row the store returns passes it through (src/rows.ts), and the
// add_subagent_columns step gives a store created before a column that column
// (src/migrations/column-step.ts). These tests hold each of those to the DDL, on both dialects.
import { afterEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import * as postgresGenerated from '../generated/postgres/index.js';
import * as sqliteGenerated from '../generated/sqlite/index.js';
import { stepStatuses } from './helpers/migration-db.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const generated = { sqlite: sqliteGenerated, postgres: postgresGenerated };

describeBothDialects('the column list', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  const { subagentColumns, addColumnSchema } = generated[dialect];
  const columnsQuery = byDialect(dialect, {
    sqlite: `SELECT name FROM pragma_table_info('task_session_subagents')`,
    postgres: `SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'task_session_subagents' AND table_schema = current_schema() ORDER BY ordinal_position`,
  });
  const liveColumns = async (d: TestDb) => (await d.query<{ name: string }>(columnsQuery)).map((r) => r.name);

  it('is the fresh table as created, in DDL order; every nullable column has its ADD COLUMN', async () => {
    db = await openTestDb(dialect, 'package');
    expect(await liveColumns(db)).toEqual([...subagentColumns]);
    expect(subagentColumns).toContain('child_session_id');
    const addable = addColumnSchema.map((c) => c.column);
    expect(addable).toEqual(expect.arrayContaining(['turn_id', 'model', 'total_tokens', 'settled_at']));
    for (const key of ['id', 'task_session_id', 'agent_execution_id', 'tool_call_id', 'is_async', 'observed_at']) expect(addable).not.toContain(key);
  });

  // Key order is not part of the row's contract (node-postgres appends the renamed timestamp columns).
  it('is what a listed row holds', async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    const store = db.store();
    expect(await store.recordFrame({ sessionId: 's1', taskId: 't1', toolCallId: 'tc1', payload: { model: 'm' } })).toBe('persisted');
    const [row] = await store.listBySession('s1');
    expect(Object.keys(row).sort()).toEqual([...subagentColumns].sort());
    expect(row.model).toBe('m');
  });

  it('add_subagent_columns gives a store that lacks a nullable column that column, then is skipped', async () => {
    db = await openTestDb(dialect, 'package');
    await db.exec('ALTER TABLE task_session_subagents DROP COLUMN model');
    expect(await liveColumns(db)).not.toContain('model');
    const store = db.store();
    const first = await store.runMigrations();
    expect(first.ok).toBe(true);
    expect(stepStatuses(first).add_subagent_columns).toBe('applied');
    expect([...(await liveColumns(db))].sort()).toEqual([...subagentColumns].sort());
    const second = await store.runMigrations();
    expect(stepStatuses(second).add_subagent_columns).toBe('skipped');
    await insertSession(db, 's1');
    expect(await store.recordFrame({ sessionId: 's1', taskId: 't1', toolCallId: 'tc1', payload: { model: 'm' } })).toBe('persisted');
    expect((await store.listBySession('s1'))[0].model).toBe('m');
  });
});
