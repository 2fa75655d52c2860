// PostgreSQL only, because only PostgreSQL has the setting (scripts/lib/query-files.ts,
// DIALECT_ONLY): the backfill's INSERT runs under a fixed work_mem (BACKFILL_WORK_MEM,
// queries/postgres/set_local_work_mem.sql), so its sort and hash do not grow the backend with
// the store or with a work_mem a DBA raised; COMMIT gives the connection its own setting back.
// What the INSERT ran under is read by a host trigger on the table, in the INSERT itself.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore } from '../src/index.js';
import { BACKFILL_WORK_MEM } from '../src/postgres/migrations.js';
import { steppingClock } from './helpers/clock.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const HOST_WORK_MEM = '64MB'; // a host that tuned its database for reports

describe('the backfill under a fixed work_mem [postgres]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'toolu_1', createdAt: hostTimestamp(db, 1_785_000_000_000_000_000n) });
    const [{ database }] = await db.query<{ database: string }>('SELECT current_database() AS database');
    await db.exec(`ALTER DATABASE "${database}" SET work_mem = '${HOST_WORK_MEM}'`);
    await db.exec(`
      CREATE TABLE work_mem_seen (source text NOT NULL, work_mem text NOT NULL);
      CREATE FUNCTION record_work_mem() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        INSERT INTO work_mem_seen SELECT DISTINCT n.source, current_setting('work_mem') FROM inserted AS n;
        RETURN NULL;
      END $f$;
      CREATE TRIGGER record_work_mem AFTER INSERT ON task_session_subagents
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION record_work_mem();`);
  });
  afterEach(async () => db.close());

  it("runs the INSERT at BACKFILL_WORK_MEM and leaves the host's own setting on the connection", async () => {
    const pool = poolFor({ connectionString: db.location, max: 1 }); // one connection: the migration's, checked after
    try {
      expect((await pool.query('SHOW work_mem')).rows[0].work_mem).toBe(HOST_WORK_MEM);
      const report = await createPostgresStore(pool, { clock: steppingClock() }).runMigrations();
      expect(report.ok).toBe(true);
      expect(report.steps.find((s) => s.name === 'backfill_subagent_contexts')?.status).toBe('applied');
      expect(await db.query('SELECT source, work_mem FROM work_mem_seen')).toEqual([{ source: 'backfill', work_mem: BACKFILL_WORK_MEM }]);
      expect(await db.query('SELECT tool_call_id FROM task_session_subagents')).toEqual([{ tool_call_id: 'toolu_1' }]);
      expect((await pool.query('SHOW work_mem')).rows[0].work_mem).toBe(HOST_WORK_MEM);
    } finally {
      await pool.end();
    }
  });
});
