// `subagent-context migrate`, the real binary against a real SQLite file and PostgreSQL
// database: it runs runMigrations() and prints its report (exit 0), reports a failed step
// with exit 6 (the failure injected by a trigger in the database), and refuses a database
// without the host's tables.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MigrationReport } from '../src/types.js';
import { assertBuilt, databaseArgs, oneLineError, runCliBinary } from './helpers/cli.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY } from './helpers/activation-keys.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const T0 = 1_785_000_000_000_000_000n;

beforeAll(assertBuilt);

describeBothDialects('cli: migrate', (dialect) => {
  let db: TestDb;
  afterEach(async () => db.close());

  describe('on a host database', () => {
    beforeEach(async () => {
      db = await openTestDb(dialect); // host tables only, as a host ships them
      await insertSession(db, 's1');
      await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, T0) });
    });

    it('migrates a host database: exit 0, every step printed, then health sees the activation', async () => {
      const run = await runCliBinary(['migrate', ...databaseArgs(db)]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^subagent-context migrate: /);
      expect(run.stdout).toMatch(/^ {2}applied +backfill_subagent_contexts /m);
      expect(run.stdout).toMatch(/^result: ok \(\d+ steps\)$/m);
      const keys = await db.query<{ key: string }>('SELECT key FROM kandev_meta ORDER BY key');
      expect(keys.map((k) => k.key)).toEqual([KEY.backfillThrough, KEY.captureSince, KEY.executionSince].sort());
      const [row] = await db.query<{ source: string }>("SELECT source FROM task_session_subagents WHERE tool_call_id = 'tc-1'");
      expect(row.source).toBe('backfill');

      // A second run succeeds too; --json prints the MigrationReport.
      const again = await runCliBinary(['migrate', ...databaseArgs(db), '--json']);
      expect(again.code).toBe(0);
      const report = JSON.parse(again.stdout) as MigrationReport;
      expect(report.ok).toBe(true);
      expect(report.steps.length).toBeGreaterThan(0);
      expect(report.steps.filter((s) => s.status === 'failed')).toEqual([]);
      expect(report.steps.find((s) => s.name === 'backfill_subagent_contexts')?.status).toBe('skipped');
    });

    it('a failing step: exit 6, the step reported failed, and the run still completes', async () => {
      await db.apply('package');
      if (byDialect(dialect, { sqlite: true, postgres: false })) {
        await db.exec("CREATE TRIGGER refuse_rows BEFORE INSERT ON task_session_subagents BEGIN SELECT RAISE(ABORT, 'injected'); END");
      } else {
        await db.exec(`
          CREATE FUNCTION refuse_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$;
          CREATE TRIGGER refuse_rows BEFORE INSERT ON task_session_subagents FOR EACH ROW EXECUTE FUNCTION refuse_rows();`);
      }
      const run = await runCliBinary(['migrate', ...databaseArgs(db)]);
      expect(run.code).toBe(6);
      expect(run.stdout).toMatch(/^ {2}failed +backfill_subagent_contexts .*injected/m);
      expect(run.stdout).toMatch(/^result: FAILED \(1 of \d+ steps failed/m);
      // AC-24a: no key after a failed backfill, and health says so (exit 4).
      const health = await runCliBinary(['health', ...databaseArgs(db), '--json']);
      expect(health.code).toBe(4);
      expect(JSON.parse(health.stdout)).toMatchObject({ keys: { capture_since: null, backfill_through: null }, verdict: 'not_activated' });
    });
  });

  it('refuses a database without the host tables: exit 7, one line, nothing created', async () => {
    db = await openTestDb(dialect);
    await db.exec('DROP TABLE task_session_messages');
    await db.exec('DROP TABLE task_sessions');
    const run = await runCliBinary(['migrate', ...databaseArgs(db)]);
    expect(run.code, run.stderr).toBe(7);
    expect(oneLineError(run)).toBe(
      "subagent-context: missing host tables task_sessions, task_session_messages: this is not the host's database " +
        '(nothing was created; --create-host-tables creates them if it is meant to hold them)',
    );
    const tables = await db.query<{ n: number | string | bigint }>(
      byDialect(dialect, {
        sqlite: "SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table'",
        postgres: "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = 'public'",
      }),
    );
    expect(Number(tables[0].n)).toBe(0);
  });
});
