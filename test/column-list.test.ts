// task_session_subagents' column list has one source, the fresh DDL
// (schema/<dialect>/002_task_session_subagents.sql): codegen reads it into
// generated/<dialect>/schema.ts, the list statements select it through the subagent_row
// fragment (derived from the same DDL), the row the store returns passes it through (src/rows.ts), and the
// add_subagent_columns step gives a store created before a column that column
// (src/migrations/column-step.ts). These tests hold each of those to the DDL, on both dialects.
import { afterEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { subagentColumnRules } from '../generated/columns.js';
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

  // The upgrade from the footprint before a column: a store whose table lacks the text columns
  // (every column the recipe adds, docs/recipes.md) and holds rows gets them on the next boot,
  // every other value of every row unchanged, the host's rows untouched, and a later frame
  // fills the new columns. (No index names a text column, so each can be dropped to rebuild the old footprint.)
  it('add_subagent_columns upgrades a store from the footprint before the text columns, keeping every row', async () => {
    const text = subagentColumnRules.filter((c) => c.text).map((c) => c.column);
    const kept = subagentColumns.filter((c) => !text.includes(c));
    expect(text).toEqual(expect.arrayContaining(['description', 'model', 'agent_status']));
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    await insertSession(db, 's2');
    const before = db.store();
    for (const toolCallId of ['tc1', 'tc2']) {
      const payload = Object.fromEntries(
        subagentColumnRules.filter((c) => c.text && c.from!.object === 'payload').map((c) => [c.from!.field, `old ${c.column}`]),
      );
      expect(await before.recordFrame({ sessionId: 's1', taskId: 't1', toolCallId, toolStatus: 'in_progress', payload: { ...payload, total_tokens: 7 } })).toBe(
        'persisted',
      );
    }
    const asText = (c: string) => byDialect(dialect, { sqlite: `quote(${c}) AS ${c}`, postgres: `${c}::text AS ${c}` });
    const snapshot = () => db!.query(`SELECT ${kept.map(asText).join(', ')} FROM task_session_subagents ORDER BY id`);
    const sessions = () => db!.query(`SELECT id, task_id FROM task_sessions ORDER BY id`);
    const [rowsBefore, sessionsBefore] = [await snapshot(), await sessions()];
    for (const c of text) await db.exec(`ALTER TABLE task_session_subagents DROP COLUMN ${c}`);
    expect(await liveColumns(db)).toEqual(kept);

    const store = db.store();
    const report = await store.runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report).add_subagent_columns).toBe('applied');
    expect([...(await liveColumns(db))].sort()).toEqual([...subagentColumns].sort());
    expect(await snapshot()).toEqual(rowsBefore);
    expect(await sessions()).toEqual(sessionsBefore);
    const [old] = await store.listBySession('s1');
    for (const c of text) expect(old[c as keyof typeof old], c).toBeNull(); // nothing fabricated for the rows written before

    const frame = Object.fromEntries(subagentColumnRules.filter((c) => c.text).map((c) => [c.from!.field, `new ${c.column}`]));
    expect(await store.recordFrame({ sessionId: 's1', taskId: 't1', toolCallId: 'tc1', ...frame, payload: frame })).toBe('persisted');
    const row = (await store.listBySession('s1')).find((r) => r.tool_call_id === 'tc1')!;
    for (const c of text) expect(row[c as keyof typeof row], c).toBe(`new ${c}`);
    expect(row.total_tokens).toBe(7);
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
