// The AC-33 upgrade never silently loses what a host added to the pre-amendment table (issue
// #16 item 6). SQLite rebuilds the table: a host index and trigger are re-created from their
// own DDL (the trigger fires for new rows, not for the copied ones), while a host column — which
// the rebuild's fixed copy cannot carry — refuses the rebuild: the step fails with a WARN naming
// the column and what hangs on it, and the table is left byte for byte as it was. PostgreSQL
// upgrades in place: the same column with its values, index and trigger simply survive.
import { afterEach, beforeEach, expect, it } from 'vitest';
import * as postgresGenerated from '../generated/postgres/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { seedPreAmendmentRows, stepStatuses } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

/**
 * The host's audit table and an AFTER INSERT trigger on the package's table feeding it, the
 * table named as the host's DDL spells it: SQLite resolves a name in any case and keeps a
 * trigger's and an index's table name as written (a trigger `ON TASK_SESSION_SUBAGENTS` was
 * not seen as the table's, so the rebuild dropped it silently: a review, 2026-12).
 */
async function addHostIndexAndTrigger(db: TestDb, table = 'task_session_subagents'): Promise<void> {
  await db.exec('CREATE TABLE host_audit (subagent_id TEXT NOT NULL)');
  await db.exec(`CREATE INDEX host_idx_subagents_model ON ${table} (model)`);
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`CREATE TRIGGER host_audit_insert AFTER INSERT ON ${table}
      BEGIN INSERT INTO host_audit (subagent_id) VALUES (NEW.id); END`);
    return;
  }
  await db.exec(`CREATE FUNCTION host_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO host_audit (subagent_id) VALUES (NEW.id); RETURN NEW; END $$`);
  await db.exec(`CREATE TRIGGER host_audit_insert AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION host_audit_row()`);
}

/** Everything SQLite holds for the table — its schema entries and every value with its storage class. */
async function sqliteTableImage(db: TestDb): Promise<{ schema: unknown[]; rows: unknown[] }> {
  const schema = await db.query(`SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE tbl_name = 'task_session_subagents' ORDER BY type, name`);
  const columns = (await db.query<{ name: string }>(`SELECT name FROM pragma_table_xinfo('task_session_subagents') ORDER BY cid`)).map((c) => c.name);
  const rows = await db.query(`SELECT ${columns.map((c) => `quote(${c})`).join(` || '|' || `)} AS raw FROM task_session_subagents ORDER BY rowid`);
  return { schema, rows };
}

const hostObjectNames = async (db: TestDb) =>
  (
    await byDialect(db.dialect, {
      sqlite: async () =>
        (
          await db.query<{ type: string; name: string }>(
            `SELECT type, name FROM sqlite_schema WHERE tbl_name = 'task_session_subagents' COLLATE NOCASE AND name LIKE 'host_%' ORDER BY name`,
          )
        ).map((r) => `${r.type} ${r.name}`),
      postgres: async () => (await postgresGenerated.readSubagentTableHostObjects.run(undefined, db.pool!)).map((o) => `${o.kind} ${o.name}`),
    })()
  ).sort();

describeBothDialects('host additions to the pre-amendment table survive the upgrade', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'legacy');
    await insertSession(db, 's1', 'task-s1');
    await insertSession(db, 's2', 'task-s2');
    await seedPreAmendmentRows(db);
  });
  afterEach(async () => db.close());

  // Unquoted, PostgreSQL folds the upper-case name: the same table, as on SQLite.
  it.each(['task_session_subagents', 'TASK_SESSION_SUBAGENTS'])(
    'a host index and trigger (ON %s) are re-created by the upgrade; the trigger fires for new rows only',
    async (table) => {
      await addHostIndexAndTrigger(db, table);
      const before = await byDialect(dialect, {
        sqlite: () => db.query(`SELECT name, sql FROM sqlite_schema WHERE name LIKE 'host_%' ORDER BY name`),
        postgres: async () => [],
      })();
      const report = await db.store({ clock: steppingClock() }).runMigrations();
      expect(report.ok).toBe(true);
      expect(stepStatuses(report).upgrade_pre_amendment_table).toBe('applied');

      expect(await hostObjectNames(db)).toEqual(['index host_idx_subagents_model', 'trigger host_audit_insert']);
      if (byDialect(dialect, { sqlite: true, postgres: false }))
        expect(await db.query(`SELECT name, sql FROM sqlite_schema WHERE name LIKE 'host_%' ORDER BY name`)).toEqual(before);
      expect(await db.query('SELECT count(*) AS n FROM host_audit')).toEqual([{ n: byDialect(dialect, { sqlite: 0, postgres: '0' }) }]); // not re-fired by the copy
      expect(await db.store({ clock: steppingClock() }).recordFrame(frame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'toolu_new' }))).toBe('persisted');
      expect(await db.query('SELECT count(*) AS n FROM host_audit')).toEqual([{ n: byDialect(dialect, { sqlite: 1, postgres: '1' }) }]);
    },
  );

  it('a host column: SQLite refuses the rebuild and leaves the table as it was; PostgreSQL keeps it with its values', async () => {
    await db.exec(`ALTER TABLE task_session_subagents ADD COLUMN host_note TEXT`);
    await db.exec(`UPDATE task_session_subagents SET host_note = 'note-' || id`);
    await addHostIndexAndTrigger(db);
    const before = await byDialect(dialect, { sqlite: () => sqliteTableImage(db), postgres: async () => undefined })();
    const logger = recordingLogger();
    const report = await db.store({ clock: steppingClock(), logger }).runMigrations();

    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      expect(report.ok).toBe(false);
      const upgrade = report.steps.find((s) => s.name === 'upgrade_pre_amendment_table');
      expect(upgrade?.status).toBe('failed');
      expect(upgrade?.error).toMatch(/^refused: rebuilding task_session_subagents would drop the host's 1 column host_note and their values/);
      expect(upgrade?.error).toContain('index host_idx_subagents_model, trigger host_audit_insert');
      expect(logger.lines.map((l) => l.fields.step)).toEqual(['upgrade_pre_amendment_table']);
      // Nothing ran that needs the end state; the table is byte for byte what it was.
      expect(stepStatuses(report)).toMatchObject({ record_execution_since: 'skipped', backfill_subagent_contexts: 'skipped' });
      expect(await sqliteTableImage(db)).toEqual(before);
      return;
    }
    expect(report.ok).toBe(true);
    expect(await db.query(`SELECT id, host_note FROM task_session_subagents ORDER BY id`)).toEqual([
      { id: 'row-a', host_note: 'note-row-a' },
      { id: 'row-b', host_note: 'note-row-b' },
      { id: 'row-c', host_note: 'note-row-c' },
    ]);
    expect(await hostObjectNames(db)).toEqual(['column host_note', 'index host_idx_subagents_model', 'trigger host_audit_insert']);
  });
});
