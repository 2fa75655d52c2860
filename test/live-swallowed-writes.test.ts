// A write a host trigger swallows is never reported `persisted` (issue #16 item 7). SQLite's
// BEFORE trigger with RAISE(IGNORE) and a PostgreSQL BEFORE ROW trigger returning NULL make
// the upsert succeed with zero rows changed; the store must read what the statement changed,
// report the frame `failed` (WARN saying no row was written, counted) and still persist the
// others — on the single path, the batch path and inside a host's transaction, both dialects.
// A frame that meets an existing row (the merge path) changes that row and stays `persisted`.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { steppingClock } from './helpers/clock.js';
import { frame, storedToolCallIds } from './helpers/live-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

/** A host trigger that silently drops every INSERT (or UPDATE) of `toolCallId`. */
async function swallowWritesOf(db: TestDb, toolCallId: string, event: 'INSERT' | 'UPDATE'): Promise<void> {
  const name = `swallow_${event.toLowerCase()}_${toolCallId}`;
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`CREATE TRIGGER ${name} BEFORE ${event} ON task_session_subagents
      WHEN NEW.tool_call_id = '${toolCallId}' BEGIN SELECT RAISE(IGNORE); END`);
    return;
  }
  await db.exec(`CREATE OR REPLACE FUNCTION swallow_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`);
  await db.exec(`CREATE TRIGGER ${name} BEFORE ${event} ON task_session_subagents
    FOR EACH ROW WHEN (NEW.tool_call_id = '${toolCallId}') EXECUTE FUNCTION swallow_write()`);
}

describeBothDialects('a swallowed write is not persisted', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  it('recordFrame reports failed, WARNs that no row was written and counts it', async () => {
    await swallowWritesOf(db, 'swallowed', 'INSERT');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    expect(await store.recordFrame(frame({ toolCallId: 'swallowed' }))).toBe('failed');
    expect(await storedToolCallIds(db)).toEqual([]);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0].fields).toMatchObject({ dialect, session_id: 's1', tool_call_id: 'swallowed', code: 'no_row_written' });
    expect(String(logger.lines[0].fields.error)).toContain('no row was written');
    expect(store.counters()).toMatchObject({ attempted: 1, persisted: 0, failed: 1 });
  });

  it('recordFrames isolates the swallowed frame: the others are persisted, it is failed', async () => {
    await swallowWritesOf(db, 'swallowed', 'INSERT');
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const outcomes = await store.recordFrames([frame({ toolCallId: 'a' }), frame({ toolCallId: 'swallowed' }), frame({ toolCallId: 'b' })]);
    expect(outcomes).toEqual(['persisted', 'failed', 'persisted']);
    expect(await storedToolCallIds(db)).toEqual(['a', 'b']);
    expect(logger.lines.map((l) => [l.fields.tool_call_id, l.fields.code])).toEqual([['swallowed', 'no_row_written']]);
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 2, failed: 1 });
  });

  it('an update a trigger swallows fails the frame; the stored row keeps its values', async () => {
    const store = db.store({ clock: steppingClock(), logger: recordingLogger() });
    expect(await store.recordFrame(frame({ toolCallId: 'kept', payload: { model: 'first' } }))).toBe('persisted');
    // The merge path changes the existing row: still persisted (the row exists and took the frame).
    expect(await store.recordFrame(frame({ toolCallId: 'kept', payload: { model: 'second' } }))).toBe('persisted');
    await swallowWritesOf(db, 'kept', 'UPDATE');
    expect(await store.recordFrame(frame({ toolCallId: 'kept', payload: { model: 'third' } }))).toBe('failed');
    expect(await store.recordFrames([frame({ toolCallId: 'kept', payload: { model: 'fourth' } })])).toEqual(['failed']);
    expect(await db.query('SELECT model FROM task_session_subagents')).toEqual([{ model: 'second' }]);
    expect(store.counters()).toMatchObject({ attempted: 4, persisted: 2, failed: 2 });
  });

  it("inside the host's transaction the swallowed frame fails and the host's transaction commits the rest", async () => {
    await swallowWritesOf(db, 'swallowed', 'INSERT');
    const store = db.store({ clock: steppingClock(), logger: recordingLogger() });
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const sqlite = db.sqlite!;
      sqlite.exec('BEGIN');
      expect(await store.recordFrame(frame({ toolCallId: 'swallowed' }))).toBe('failed');
      expect(await store.recordFrames([frame({ toolCallId: 'swallowed' }), frame({ toolCallId: 'a' })])).toEqual(['failed', 'persisted']);
      sqlite.exec('COMMIT');
    } else {
      const client = await db.pool!.connect();
      try {
        await client.query('BEGIN');
        expect(await store.recordFrame(frame({ toolCallId: 'swallowed' }), { client })).toBe('failed');
        expect(await store.recordFrames([frame({ toolCallId: 'swallowed' }), frame({ toolCallId: 'a' })], { client })).toEqual(['failed', 'persisted']);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    }
    expect(await storedToolCallIds(db)).toEqual(['a']);
    expect(store.counters()).toMatchObject({ attempted: 3, persisted: 1, failed: 2 });
  });
});
