// Every value reaches the database as a bound parameter (issue 7): SQL-looking strings in
// every text field, identities included, are stored and read back verbatim, and nothing
// they spell is executed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from '../helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from '../helpers/test-db.js';
import { insertSession } from '../helpers/seed-host-rows.js';

const PAYLOADS = [
  "'); DROP TABLE task_session_subagents; --",
  '" OR 1=1 --',
  "x' OR 'a'='a",
  '$1',
  ':sessionId',
  '@id',
  '?',
  "\\'; SELECT pg_sleep(5); --",
  '%_*',
  "Robert'); DELETE FROM kandev_meta WHERE ('1'='1",
  '/* comment */ UNION SELECT * FROM task_sessions',
];

describeBothDialects('SQL injection', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(async () => db.close());

  it('stores SQL-looking strings in every text field verbatim and executes none of them', async () => {
    await db.query("INSERT INTO kandev_meta (key, value) VALUES ('sentinel', 'kept')");
    const store = db.store({ clock: steppingClock() });
    for (const [i, evil] of PAYLOADS.entries()) {
      const sessionId = `${evil}#${i}`;
      await insertSession(db, sessionId, `task ${evil}`);
      const outcome = await store.recordFrame({
        sessionId,
        taskId: `task ${evil}`,
        turnId: `turn ${evil}`,
        executionId: `exec ${evil}`,
        toolCallId: `call ${evil}`,
        parentToolCallId: `parent ${evil}`,
        toolStatus: `status ${evil}`,
        payload: {
          description: `description ${evil}`,
          subagent_type: `type ${evil}`,
          status: `agent ${evil}`,
          agent_id: `agent ${evil}`,
          model: `model ${evil}`,
          child_session_id: `child ${evil}`,
        },
      });
      expect(outcome).toBe('persisted');
      const rows = await store.listByTurn(sessionId, `turn ${evil}`);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        task_session_id: sessionId,
        task_id: `task ${evil}`,
        turn_id: `turn ${evil}`,
        agent_execution_id: `exec ${evil}`,
        tool_call_id: `call ${evil}`,
        parent_tool_call_id: `parent ${evil}`,
        tool_status: `status ${evil}`,
        description: `description ${evil}`,
        subagent_type: `type ${evil}`,
        agent_status: `agent ${evil}`,
        agent_id: `agent ${evil}`,
        model: `model ${evil}`,
        child_session_id: `child ${evil}`,
      });
    }
    const [{ n }] = await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM task_session_subagents');
    expect(Number(n)).toBe(PAYLOADS.length);
    expect(await db.query('SELECT value FROM kandev_meta WHERE key = $1', ['sentinel'])).toEqual([{ value: 'kept' }]);
    expect(store.counters()).toMatchObject({ attempted: PAYLOADS.length, persisted: PAYLOADS.length, failed: 0 });
  });
});
