// Failures and concurrent writes injected through the real database, as triggers, for the
// migration tests: never by stubbing code. Each trigger is written per dialect.
import { byDialect } from './by-dialect.js';
import type { TestDb } from './test-db.js';

/** A real failure injected through the database: a trigger that raises 'injected' when `when` holds. */
export async function createFailingTrigger(db: TestDb, table: string, when: string): Promise<void> {
  await db.exec(
    byDialect(db.dialect, {
      sqlite: `CREATE TRIGGER inject_failure BEFORE INSERT ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected'); END`,
      postgres: `
        CREATE OR REPLACE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN RAISE EXCEPTION 'injected'; END $f$;
        CREATE TRIGGER inject_failure BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION inject_failure();`,
    }),
  );
}

export async function dropFailingTrigger(db: TestDb, table: string): Promise<void> {
  await db.exec(byDialect(db.dialect, { sqlite: `DROP TRIGGER inject_failure`, postgres: `DROP TRIGGER inject_failure ON ${table}` }));
}

/** On the backfill's first row, inserts one more qualifying message 'late' into session s1 (newer than all others). */
export async function createLateMessageTrigger(db: TestDb, createdAt: string): Promise<void> {
  const metadata = JSON.stringify({ tool_call_id: 'toolu_late', status: 'completed', normalized: { kind: 'subagent_task', subagent_task: {} } });
  await db.exec(
    byDialect(db.dialect, {
      sqlite: `CREATE TRIGGER late_message BEFORE INSERT ON task_session_subagents WHEN NEW.source = 'backfill'
        BEGIN INSERT OR IGNORE INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
              VALUES ('late', 's1', 'task-s1', '${metadata}', '${createdAt}'); END`,
      postgres: `
        CREATE FUNCTION late_message() RETURNS trigger LANGUAGE plpgsql AS $f$
        BEGIN
          INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
          VALUES ('late', 's1', 'task-s1', '${metadata}', '${createdAt}') ON CONFLICT DO NOTHING;
          RETURN NEW;
        END $f$;
        CREATE TRIGGER late_message BEFORE INSERT ON task_session_subagents FOR EACH ROW WHEN (NEW.source = 'backfill')
          EXECUTE FUNCTION late_message();`,
    }),
  );
}
