// Identity bounds (issue 11, item 6; DESIGN §8): one definition of a recordable identity
// (src/identity.ts) shared by the live writer, the backfill and the health shortfall. Each case
// below is a fact reported against the previous code, as a regression test on both dialects:
// - a history message with a 3 KB incompressible tool_call_id (or task id, or turn id) made the
//   PostgreSQL backfill fail with 54000 on every boot, so the store never activated;
// - an id over the bound was skipped by the live writer but counted by the shortfall query: a
//   permanent false 'shortfall';
// - two executions with 600-byte ids were merged into one 'unknown' row (AC-32's clobber);
// - a tool_call_id that is a JSON number was skipped by the backfill but counted as a shortfall;
// - a metric written `1e2` was 100 on PostgreSQL and NULL on SQLite.
// The ids are random bytes (test/helpers/incompressible-ids.ts): PostgreSQL compresses
// `'a'.repeat(n)` under the btree limit, so such an id cannot catch the first fact.
// The JSON-number, NUL, surrogate and `1e2` cases are test/identity-forms.test.ts's; this file has the length bounds.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { MAX_ID_BYTES } from '../src/identity.js';
import { steppingClock } from './helpers/clock.js';
import { incompressibleId, utf8Bytes } from './helpers/incompressible-ids.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { CLOCK_START, digestOf, identityHistory } from './helpers/identity-history.js';

describeBothDialects('identity bounds', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect); // host tables only: runMigrations installs the package
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const { keysOf, history } = identityHistory(() => db);

  it('3 KB incompressible tool_call_id, task id or turn id in history never blocks activation', async () => {
    const longTool = incompressibleId(3072, 'base64');
    const longTask = incompressibleId(3072, 'hex');
    const longTurn = incompressibleId(3072, 'utf8');
    await history('m-long-tool', 1n, { toolCallId: longTool });
    await history('m-long-task', 2n, { taskId: longTask });
    await history('m-long-turn', 3n, { turnId: longTurn });
    await history('m-clean', 4n);

    const warnings: object[] = [];
    const report = await db.store({ clock: steppingClock(CLOCK_START), logger: { warn: (f) => void warnings.push(f) } }).runMigrations();
    expect(warnings).toEqual([]);
    expect(report.ok).toBe(true);
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      // The data is what the fact needs: PostgreSQL cannot index such an id in the upsert key.
      await expect(
        db.query(
          `INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, observed_at, updated_at)
                  VALUES ('probe', 's1', 'task-1', 'unknown', $1, now(), now())`,
          [longTool],
        ),
      ).rejects.toMatchObject({ code: '54000' });
    }
    const keys = await keysOf();
    expect(keys[ACTIVATION_KEYS.captureSince]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);

    // Skipped exactly as the live writer skips such a frame (AC-2 / AC-21a); a long turn id is
    // "not reported" there and here, so its subagent is kept with turn_id NULL.
    const rows = await db.store().listBySession('s1');
    expect(rows.map((r) => [r.tool_call_id, r.task_id, r.turn_id]).sort()).toEqual([
      ['m-clean', 'task-1', 'turn-1'],
      ['m-long-turn', 'task-1', null],
    ]);
    // backfill_through names the newest message the backfill's own predicate admits.
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe('2026-07-25T17:20:04.000000000Z');
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 0 });
  });

  it('an id over the bound, skipped by the live writer, is not a shortfall', async () => {
    const clock = steppingClock(CLOCK_START, SECOND);
    const store = db.store({ clock });
    expect((await store.runMigrations()).ok).toBe(true);
    const cases = [
      { toolCallId: incompressibleId(600, 'hex'), sessionId: 's1', taskId: 'task-1' },
      { toolCallId: 'toolu-ok-1', sessionId: 's1', taskId: incompressibleId(MAX_ID_BYTES + 1, 'utf8') },
    ];
    for (const [i, c] of cases.entries()) {
      expect(utf8Bytes(c.toolCallId) > MAX_ID_BYTES || utf8Bytes(c.taskId) > MAX_ID_BYTES).toBe(true);
      await insertMessage(db, {
        id: `m-${i}`,
        sessionId: c.sessionId,
        taskId: c.taskId,
        metadata: subagentMetadata({ toolCallId: c.toolCallId, subagent: {} }),
        createdAt: hostTimestamp(db, clock()),
      });
      expect(await store.recordFrame({ ...c, executionId: 'e-1', payload: {} })).toBe('skipped_no_identity');
    }
    // One subagent recorded normally, so the verdict has a row to read.
    await insertMessage(db, {
      id: 'm-ok',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: 'toolu-ok', subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: 'toolu-ok', executionId: 'e-1', payload: {} })).toBe('persisted');

    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, excess: 0, verdict: 'healthy' });
    // The bound is inclusive: at exactly MAX_ID_BYTES the same message is expected and recorded.
    const atBound = incompressibleId(MAX_ID_BYTES, 'utf8');
    await insertMessage(db, {
      id: 'm-bound',
      sessionId: 's1',
      taskId: 'task-1',
      metadata: subagentMetadata({ toolCallId: atBound, subagent: {} }),
      createdAt: hostTimestamp(db, clock()),
    });
    expect(await store.checkHealth()).toMatchObject({ shortfall: 1 });
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', toolCallId: atBound, executionId: 'e-1', payload: {} })).toBe('persisted');
    expect(await store.checkHealth()).toMatchObject({ shortfall: 0, verdict: 'healthy' });
  });

  it('two executions with 600-byte ids and one tool_call_id keep two rows (AC-32), each merging its own frames', async () => {
    const store = db.store({ clock: steppingClock(CLOCK_START) });
    expect((await store.runMigrations()).ok).toBe(true);
    const execA = incompressibleId(600, 'base64');
    const execB = incompressibleId(600, 'utf8');
    const f = (executionId: string, payload: Record<string, unknown>, toolStatus?: string) => ({
      sessionId: 's1',
      taskId: 'task-1',
      toolCallId: 'toolu-shared',
      executionId,
      toolStatus,
      payload,
    });
    expect(await store.recordFrame(f(execA, { model: 'model-a' }))).toBe('persisted');
    expect(await store.recordFrames([f(execB, { model: 'model-b' }), f(execA, { total_tokens: 11 }, 'completed')])).toEqual(['persisted', 'persisted']);
    expect(await store.recordFrame(f(execB, { total_tokens: 22 }, 'completed'))).toBe('persisted');

    const rows = await store.listBySession('s1');
    expect(rows.map((r) => [r.agent_execution_id, r.model, r.total_tokens, r.tool_status]).sort()).toEqual(
      [
        [digestOf(execA), 'model-a', 11, 'completed'],
        [digestOf(execB), 'model-b', 22, 'completed'],
      ].sort(),
    );
    // An identity the database cannot index is not an absent one: no 'unknown' row, no
    // unknown_execution count (AC-31 is for frames without an execution id).
    expect(store.counters()).toMatchObject({ persisted: 4, unknown_execution: 0 });
  });

  it('the bound fits the whole upsert key: three ids of exactly MAX_ID_BYTES incompressible bytes are recorded', async () => {
    const session = incompressibleId(MAX_ID_BYTES, 'base64');
    const execution = incompressibleId(MAX_ID_BYTES, 'utf8');
    const toolCall = incompressibleId(MAX_ID_BYTES, 'hex');
    const turn = incompressibleId(MAX_ID_BYTES, 'utf8');
    const task = incompressibleId(MAX_ID_BYTES, 'base64');
    await insertSession(db, session, task);
    const store = db.store({ clock: steppingClock(CLOCK_START) });
    expect((await store.runMigrations()).ok).toBe(true);
    expect(await store.recordFrame({ sessionId: session, taskId: task, executionId: execution, toolCallId: toolCall, turnId: turn, payload: {} })).toBe(
      'persisted',
    );
    const [row] = await store.listBySession(session);
    expect(row).toMatchObject({ task_session_id: session, task_id: task, agent_execution_id: execution, tool_call_id: toolCall, turn_id: turn });
    if (byDialect(dialect, { sqlite: false, postgres: true })) {
      // The budget is real: the limit counts every column of the key's btree entry, so three
      // ids that each fit alone (1,000 bytes < 2,704) do not fit together.
      const big = () => incompressibleId(1000, 'base64');
      const [s, e, t] = [big(), big(), big()];
      await insertSession(db, s, 'task-1');
      await expect(
        db.query(
          `INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, observed_at, updated_at)
                  VALUES ('probe', $1, 'task-1', $2, $3, now(), now())`,
          [s, e, t],
        ),
      ).rejects.toMatchObject({ code: '54000' });
    }
  });
});
