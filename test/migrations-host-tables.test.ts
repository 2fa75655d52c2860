// Issue 30 item 3: runMigrations() on a database that is not a host's refuses before it changes
// anything (one failed check_host_tables step, code missing_host_tables, nothing created, no key
// written, the same answer on every boot), and store.createHostTables() is the supported way to
// give such a database the host tables, after which the pass activates.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { describeBothDialects, openTestDb, type Dialect, type TestDb } from './helpers/test-db.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;

/** Every table, index, view, trigger and function in the database (the test's own schema only). */
async function objects(db: TestDb, dialect: Dialect): Promise<string[]> {
  const rows = await db.query<{ o: string }>(
    byDialect(dialect, {
      sqlite: `SELECT type || ' ' || name AS o FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY 1`,
      postgres: `SELECT c.relkind::text || ' ' || c.relname AS o FROM pg_class AS c WHERE c.relnamespace = 'public'::regnamespace
                 UNION ALL SELECT 'f ' || p.proname::text FROM pg_proc AS p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`,
    }),
  );
  return rows.map((r) => r.o);
}

describeBothDialects('runMigrations on a database without the host tables', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect);
    await db.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions');
  });
  afterEach(async () => db.close());

  it('refuses before changing anything: ok false, one failed check with code missing_host_tables, nothing created, every boot', async () => {
    expect(await objects(db, dialect)).toEqual([]);
    for (let boot = 0; boot < 2; boot++) {
      const logger = recordingLogger();
      const report = await db.store({ clock: steppingClock(T0), logger }).runMigrations();
      expect(report.ok).toBe(false);
      const [check, ...rest] = report.steps;
      expect(check).toMatchObject({ name: 'check_host_tables', status: 'failed' });
      expect(check.error).toMatch(/^missing host tables task_sessions, task_session_messages: this is not the host's database, and nothing was created\. /);
      expect(check.error).toMatch(/store\.createHostTables\(\).*\(missing_host_tables\)$/);
      expect(rest.length).toBeGreaterThan(0);
      expect(rest.every((s) => s.status === 'skipped' && s.detail === 'not run: check_host_tables failed')).toBe(true);
      expect(logger.lines.map((l) => [l.fields.step, l.fields.code])).toEqual([['check_host_tables', 'missing_host_tables']]);
      expect(await objects(db, dialect)).toEqual([]); // no kandev_meta, no table, no index, no helper, no key
    }
  });

  it('names the one table that is missing, and still creates nothing', async () => {
    await db.exec(
      byDialect(dialect, {
        sqlite: 'CREATE TABLE task_sessions (id TEXT PRIMARY KEY)',
        postgres: 'CREATE TABLE task_sessions (id TEXT PRIMARY KEY)',
      }),
    );
    const report = await db.store({ clock: steppingClock(T0), logger: recordingLogger() }).runMigrations();
    expect(report.ok).toBe(false);
    expect(report.steps[0].error).toMatch(/^missing host table task_session_messages: /);
    expect(await objects(db, dialect)).toEqual(
      [
        ...byDialect(dialect, { sqlite: [], postgres: ['i task_sessions_pkey'] }),
        byDialect(dialect, { sqlite: 'table task_sessions', postgres: 'r task_sessions' }),
      ].sort(),
    );
  });

  it('createHostTables() creates exactly the host tables, idempotently; then the pass activates and records history', async () => {
    const store = db.store({ clock: steppingClock(T0 + 1_000_000_000n) });
    await store.createHostTables();
    const created = await objects(db, dialect);
    expect(created).toEqual(
      byDialect(dialect, {
        sqlite: ['index idx_messages_created_at', 'index idx_messages_session_created', 'table task_session_messages', 'table task_sessions'],
        postgres: [
          'i idx_messages_created_at',
          'i idx_messages_session_created',
          'i task_session_messages_pkey',
          'i task_sessions_pkey',
          'r task_session_messages',
          'r task_sessions',
        ],
      }),
    );
    await insertSession(db, 's1', 'task-1');
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-history', createdAt: hostTimestamp(db, T0) });
    await store.createHostTables(); // again: nothing changes, the row stays
    expect(await objects(db, dialect)).toEqual(created);
    expect(await db.query('SELECT id FROM task_session_messages')).toEqual([{ id: 'm1' }]);

    const report = await store.runMigrations();
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.name)).not.toContain('check_host_tables');
    expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'tc-history' }]);
    expect((await store.checkHealth()).shortfall).toBe(0);
  });
});

describeBothDialects('createHostTables on a host database', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(async () => db.close());

  it("leaves the host's own tables as they are: a column of its own and its rows stay", async () => {
    await db.exec('ALTER TABLE task_sessions ADD COLUMN host_note TEXT');
    await insertSession(db, 's1', 'task-1');
    await db.exec(`UPDATE task_sessions SET host_note = 'kept'`);
    await db.store().createHostTables();
    expect(await db.query('SELECT id, host_note FROM task_sessions')).toEqual([{ id: 's1', host_note: 'kept' }]);
  });
});
