// Issue 30 item 3: a frame for a session the host has not saved (yet) gets a documented outcome
// instead of a raw foreign-key error: 'failed', counted as such (AC-26's sum stays exact), with
// a WARN whose code is `unknown_session` and whose message names the session; the driver's
// error stays on `cause`. The frames around it are written, and once the host saves the session
// the next frame of the same tool call writes the row.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SubagentContextError } from '../src/errors.js';
import { steppingClock } from './helpers/clock.js';
import { byDialect } from './helpers/by-dialect.js';
import { frame } from './helpers/live-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { insertSession } from './helpers/seed-host-rows.js';

const UNSAVED = 'ses-not-saved-yet';
const EXPLAINED = `session "${UNSAVED}" is not in task_sessions (the host has not saved it yet, or deleted it): the subagent row was not written`;

describeBothDialects('a frame for a session the host has not saved', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-1');
  });
  afterEach(async () => db.close());

  const stored = async () => (await db.query<{ t: string }>('SELECT tool_call_id AS t FROM task_session_subagents ORDER BY 1')).map((r) => r.t);

  it("recordFrame: 'failed', counted, one WARN with code unknown_session naming the session; the row is written once the session is saved", async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    expect(await store.recordFrame(frame({ sessionId: UNSAVED, toolCallId: 'tc-early' }))).toBe('failed');
    expect(store.counters()).toMatchObject({ attempted: 1, persisted: 0, skipped_no_identity: 0, failed: 1 });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0].msg).toBe('subagent context write failed');
    expect(logger.lines[0].fields).toMatchObject({ session_id: UNSAVED, tool_call_id: 'tc-early', code: 'unknown_session', error: EXPLAINED });
    expect(await stored()).toEqual([]);

    await insertSession(db, UNSAVED, 'task-1');
    expect(await store.recordFrame(frame({ sessionId: UNSAVED, toolCallId: 'tc-early' }))).toBe('persisted');
    expect(await stored()).toEqual(['tc-early']);
  });

  it('recordFrames: only the unknown session fails; the frames around it are written and the counters add up', async () => {
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const outcomes = await store.recordFrames([
      frame({ toolCallId: 'tc-a' }),
      frame({ sessionId: UNSAVED, toolCallId: 'tc-b' }),
      frame({ toolCallId: '' }),
      frame({ toolCallId: 'tc-c' }),
    ]);
    expect(outcomes).toEqual(['persisted', 'failed', 'skipped_no_identity', 'persisted']);
    const c = store.counters();
    expect(c).toMatchObject({ attempted: 4, persisted: 2, skipped_no_identity: 1, failed: 1 });
    expect(c.attempted).toBe(c.persisted + c.skipped_no_identity + c.failed);
    expect(logger.lines.map((l) => [l.fields.tool_call_id, l.fields.code, l.fields.error])).toEqual([['tc-b', 'unknown_session', EXPLAINED]]);
    expect(await stored()).toEqual(['tc-a', 'tc-c']);
  });

  it("the driver's foreign-key error stays on the explained error's cause", async () => {
    const { explainWriteError } = await import('../src/unknown-session.js');
    let raw: unknown;
    try {
      await db.exec(`INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, observed_at, updated_at)
                     VALUES ('x', '${UNSAVED}', 'task-1', 'e', 't', '2026-01-01 00:00:00', '2026-01-01 00:00:00')`);
    } catch (err) {
      raw = err;
    }
    expect((raw as { code?: string }).code).toBe(byDialect(dialect, { sqlite: 'SQLITE_CONSTRAINT_FOREIGNKEY', postgres: '23503' }));
    const explained = explainWriteError(raw, UNSAVED);
    expect(explained).toBeInstanceOf(SubagentContextError);
    expect(explained).toMatchObject({ code: 'unknown_session', message: EXPLAINED, cause: raw });
    // Any other error is reported as it came.
    const other = Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' });
    expect(explainWriteError(other, UNSAVED)).toBe(other);
  });
});
