// A real failure at the END of the AC-33 upgrade, so rolling back has to undo every earlier
// part: SQLite — a table squatting on the last index name the rebuild creates (CREATE INDEX IF
// NOT EXISTS still refuses a table's name); PostgreSQL — an event trigger that raises as soon as
// the three-column key exists, i.e. after the column was added and the old key dropped.
import type { TestDb } from './test-db.js';
import { byDialect } from './by-dialect.js';

export async function injectUpgradeFailure(d: TestDb): Promise<void> {
  if (byDialect(d.dialect, { sqlite: true, postgres: false })) {
    await d.exec(`CREATE TABLE idx_subagents_observed_at (x INTEGER)`);
    return;
  }
  await d.exec(`
    CREATE FUNCTION inject_upgrade_failure() RETURNS event_trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF EXISTS (SELECT 1 FROM pg_constraint
                  WHERE conrelid = to_regclass('task_session_subagents')
                    AND pg_get_constraintdef(oid) = 'UNIQUE (task_session_id, agent_execution_id, tool_call_id)') THEN
        RAISE EXCEPTION 'injected';
      END IF;
    END $f$;
    CREATE EVENT TRIGGER inject_upgrade_failure ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
      EXECUTE FUNCTION inject_upgrade_failure();`);
}

export async function removeUpgradeFailure(d: TestDb): Promise<void> {
  await d.exec(byDialect(d.dialect, { sqlite: `DROP TABLE idx_subagents_observed_at`, postgres: `DROP EVENT TRIGGER inject_upgrade_failure` }));
}
