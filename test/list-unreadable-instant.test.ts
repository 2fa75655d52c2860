// A stored instant the package cannot read (written outside it: an offset beyond SQLite's
// ±14:59, PostgreSQL's 'infinity') makes listBySession/listByTurn reject with a named error
// that says which row and column, instead of a TypeError, and never reads a settled row as
// unsettled (its settled_at as NULL). Both dialects, real stores.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SubagentContextError } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession } from './helpers/seed-host-rows.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

describeBothDialects('a stored instant the package cannot read', (dialect) => {
  let db: TestDb;
  const unreadable = byDialect(dialect, { sqlite: '2026-07-25 17:20:00.000000+15:00', postgres: 'infinity' });

  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
    const store = db.store();
    for (const toolCallId of ['t1', 't2'])
      expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', turnId: 'turn-1', toolCallId, toolStatus: 'completed', payload: {} })).toBe(
        'persisted',
      );
  });
  afterEach(async () => db.close());

  const idOf = async (toolCallId: string) =>
    (await db.query<{ id: string }>('SELECT id FROM task_session_subagents WHERE tool_call_id = $1', [toolCallId]))[0].id;

  for (const column of ['observed_at', 'settled_at', 'updated_at']) {
    it(`${column}: both list calls reject with unreadable_row naming the row and the column`, async () => {
      const store = db.store();
      expect((await store.listBySession('s1')).every((r) => r.settled_at !== null)).toBe(true);
      const id = await idOf('t2');
      await db.exec(`UPDATE task_session_subagents SET ${column} = '${unreadable}' WHERE id = '${id}'`);
      for (const list of [() => store.listBySession('s1'), () => store.listByTurn('s1', 'turn-1')]) {
        const error = await list().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(SubagentContextError);
        expect(error).toMatchObject({ code: 'unreadable_row' });
        const message = (error as Error).message;
        expect(message).toContain(`row "${id}" `);
        expect(message).toContain('tool call "t2"');
        expect(message).toContain(`its ${column} holds`);
        expect(message).toContain(byDialect(dialect, { sqlite: '+15:00', postgres: 'infinity' }));
      }
    });
  }

  it('ids are shown quoted with their control characters escaped: no newline or terminal control reaches a log', async () => {
    const toolCallId = 'evil\n\u001b[31mFAKE LOG LINE\u001b[0m\u202e';
    const store = db.store();
    expect(await store.recordFrame({ sessionId: 's1', taskId: 'task-1', turnId: 'turn-1', toolCallId, toolStatus: 'completed', payload: {} })).toBe(
      'persisted',
    );
    await db.query(`UPDATE task_session_subagents SET settled_at = '${unreadable}' WHERE tool_call_id = $1`, [toolCallId]);
    const error = (await store.listBySession('s1').catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'unreadable_row' });
    expect(error.message).toContain('tool call "evil\\x0a\\x1b[31mFAKE LOG LINE\\x1b[0m\\u202e"');
    // eslint-disable-next-line no-control-regex -- the test is that no control character is left
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  // A timestamptz holds no long text: SQLite's TIMESTAMP column holds whatever was written.
  if (byDialect(dialect, { sqlite: true, postgres: false }))
    it('a stored value of thousands of characters is shown cut, with its length', async () => {
      const id = await idOf('t1');
      const long = `2026-07-25 17:20:00.${'1'.repeat(5000)}+15:00`;
      await db.exec(`UPDATE task_session_subagents SET updated_at = '${long}' WHERE id = '${id}'`);
      const error = (await db
        .store()
        .listBySession('s1')
        .catch((e: unknown) => e)) as Error;
      expect(error).toMatchObject({ code: 'unreadable_row' });
      expect(error.message).toContain(`(${long.length} characters)`);
      expect(error.message.length).toBeLessThan(400);
    });
});
