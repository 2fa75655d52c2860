// PostgreSQL only, because the state exists only there (DESIGN §3): metric columns an earlier
// host build created as INTEGER (int4) are widened to BIGINT by a migration. The live upsert
// is a named prepared statement, whose parameter types are fixed when a connection first
// parses it; a frame recorded before the widening must not leave that connection unable to
// write int64 values afterwards.
import { poolFor } from '../scripts/lib/postgres-database.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

describe('live upsert as a named statement [postgres]', () => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb('postgres', 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('a connection that prepared the upsert before INTEGER metrics were widened writes int64 after', async () => {
    await db.exec(`ALTER TABLE task_session_subagents
      ALTER COLUMN total_tokens TYPE integer, ALTER COLUMN tool_use_count TYPE integer, ALTER COLUMN duration_ms TYPE integer`);
    const pool = poolFor({ connectionString: db.location, max: 1 }); // one connection: the statement is reused
    try {
      const logger = recordingLogger();
      const store = createPostgresStore(pool, { clock: steppingClock(), logger });
      expect(await store.recordFrame(frame({ toolCallId: 'before', payload: { total_tokens: 5 } }))).toBe('persisted');
      await db.exec(`ALTER TABLE task_session_subagents
        ALTER COLUMN total_tokens TYPE bigint, ALTER COLUMN tool_use_count TYPE bigint, ALTER COLUMN duration_ms TYPE bigint`);
      const big = 2n ** 40n;
      expect(await store.recordFrame(frame({ toolCallId: 'after', payload: { total_tokens: big, tool_use_count: big, duration_ms: big } }))).toBe('persisted');
      expect(logger.lines).toEqual([]);
      const [row] = (await store.listBySession('s1')).filter((r) => r.tool_call_id === 'after');
      expect([row.total_tokens, row.tool_use_count, row.duration_ms]).toEqual([Number(big), Number(big), Number(big)]);
    } finally {
      await pool.end();
    }
  });
});
