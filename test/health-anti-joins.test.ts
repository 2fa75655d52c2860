// AC-28's two directions, never netted, and AC-29's scoped attribution, on seeded stores:
// the first missed write is the first divergence however much excess is banked; excess and
// collisions never alarm; duplicate messages and AC-2 skips never false-alarm; malformed
// metadata is a non-match, not an error; the scoped MAX ignores backfilled and pre-activation
// rows; execution_since never narrows the window (AC-25, revision 4).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { formatKeyInstant } from '../src/instant.js';
import { steppingClock } from './helpers/clock.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, SECOND } from './helpers/host-timestamp.js';
import { insertMessage, insertSession, insertSubagentMessage, subagentMetadata } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const T0 = 1_785_000_000_000_000_000n; // 2026-07-25T17:20:00Z: capture_since
const AFTER = (s: bigint) => T0 + s * SECOND;
const BEFORE = (s: bigint) => T0 - s * SECOND;
const EXEC_A = '6f1c1b7e-2f0a-4d55-9a43-0d6c1e0b7a01';
const EXEC_B = '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11';

describeBothDialects('health: shortfall and excess anti-joins', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1', 'task-s1');
    await insertSession(db, 's2', 'task-s2');
    await setKeys(db, { [KEY.captureSince]: formatKeyInstant(T0), [KEY.backfillThrough]: '', [KEY.executionSince]: formatKeyInstant(T0) });
  });
  afterEach(async () => db.close());

  /** One subagent observed correctly: its message plus a row written by the real live writer. */
  async function healthyFanOut(clock: () => bigint, sessionId: string, toolCallId: string, executionId = EXEC_A) {
    const store = db.store({ clock });
    await insertSubagentMessage(db, { id: `m-${sessionId}-${toolCallId}-${executionId}`, sessionId, toolCallId, createdAt: hostTimestamp(db, clock() - 1n) });
    expect(
      await store.recordFrame({ sessionId, taskId: `task-${sessionId}`, executionId, toolCallId, toolStatus: 'completed', payload: { status: 'completed' } }),
    ).toBe('persisted');
  }

  it('banked excess cannot absorb a missed write: the shortfall goes non-zero at the FIRST miss', async () => {
    const clock = steppingClock(AFTER(10n), SECOND);
    // Standing excess of two kinds: a cross-execution collision (one message, two rows) and a
    // row whose message write failed (AC-27).
    await healthyFanOut(clock, 's1', 'tc-reused', EXEC_A);
    expect(await db.store({ clock }).recordFrame({ sessionId: 's1', taskId: 'task-s1', executionId: EXEC_B, toolCallId: 'tc-reused', payload: {} })).toBe(
      'persisted',
    );
    await insertSubagentRow(db, { id: 'r-orphan', sessionId: 's2', toolCallId: 'tc-orphan', executionId: EXEC_A, observedAt: hostTimestamp(db, AFTER(30n)) });
    const banked = await db.store().checkHealth();
    expect(banked).toMatchObject({ shortfall: 0, excess: 1, collisions: 1, verdict: 'healthy' });

    // The writer stops; messages continue. One miss is one shortfall, immediately.
    await insertSubagentMessage(db, { id: 'm-miss-1', sessionId: 's1', toolCallId: 'tc-miss-1', createdAt: hostTimestamp(db, AFTER(40n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, excess: 1, collisions: 1, verdict: 'shortfall' });
    await insertSubagentMessage(db, { id: 'm-miss-2', sessionId: 's2', toolCallId: 'tc-miss-2', createdAt: hostTimestamp(db, AFTER(41n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 2, excess: 1, verdict: 'shortfall' });
  });

  it('excess does not alarm: a standing excess beside a healthy writer reads shortfall 0, excess > 0, healthy', async () => {
    const clock = steppingClock(AFTER(5n), SECOND);
    await healthyFanOut(clock, 's1', 'tc-1');
    await healthyFanOut(clock, 's2', 'tc-2');
    // Rows whose message write failed, and a row whose message predates capture_since (an
    // AC-1a straddle: message created before the key, recognized by a frame after it).
    await insertSubagentRow(db, { id: 'r-x1', sessionId: 's1', toolCallId: 'tc-x1', observedAt: hostTimestamp(db, AFTER(20n)) });
    await insertSubagentRow(db, { id: 'r-x2', sessionId: 's2', toolCallId: 'tc-x2', observedAt: hostTimestamp(db, AFTER(21n)) });
    await insertSubagentMessage(db, { id: 'm-straddle', sessionId: 's1', toolCallId: 'tc-straddle', createdAt: hostTimestamp(db, BEFORE(1n)) });
    await insertSubagentRow(db, { id: 'r-straddle', sessionId: 's1', toolCallId: 'tc-straddle', observedAt: hostTimestamp(db, AFTER(1n)) });
    const report = await db.store().checkHealth();
    expect(report).toMatchObject({ shortfall: 0, excess: 3, collisions: 0, verdict: 'healthy', state: 'activated' });
    expect(report.last_observed_at).toBe('2026-07-25T17:20:21.000000Z');
  });

  it('duplicate-message symmetry: two messages describing one subagent, one row, is no shortfall', async () => {
    await insertSubagentMessage(db, { id: 'm-dup-1', sessionId: 's1', toolCallId: 'tc-dup', createdAt: hostTimestamp(db, AFTER(1n)) });
    await insertSubagentMessage(db, { id: 'm-dup-2', sessionId: 's1', toolCallId: 'tc-dup', createdAt: hostTimestamp(db, AFTER(2n)) });
    await insertSubagentRow(db, { id: 'r-dup', sessionId: 's1', toolCallId: 'tc-dup', observedAt: hostTimestamp(db, AFTER(2n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 0, excess: 0, collisions: 0, verdict: 'healthy' });
    // The key counts once on the expected side too: remove the row and the shortfall is 1, not 2.
    await db.query('DELETE FROM task_session_subagents');
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1 });
  });

  it('AC-2 / AC-21a skips cause no shortfall: empty or missing task_id, tool_call_id, session id', async () => {
    await insertSession(db, '', 'task-empty-session');
    const skipped = [
      { id: 'm-no-task', sessionId: 's1', taskId: '', metadata: subagentMetadata({ toolCallId: 'tc-a', subagent: {} }) },
      { id: 'm-null-task', sessionId: 's1', taskId: null, metadata: subagentMetadata({ toolCallId: 'tc-b', subagent: {} }) },
      { id: 'm-empty-tcid', sessionId: 's1', taskId: 'task-s1', metadata: subagentMetadata({ toolCallId: '', subagent: {} }) },
      { id: 'm-no-tcid', sessionId: 's1', taskId: 'task-s1', metadata: JSON.stringify({ normalized: { kind: 'subagent_task', subagent_task: {} } }) },
      { id: 'm-empty-session', sessionId: '', taskId: 'task-x', metadata: subagentMetadata({ toolCallId: 'tc-c', subagent: {} }) },
    ];
    for (const m of skipped) await insertMessage(db, { ...m, createdAt: hostTimestamp(db, AFTER(3n)) });
    const clean = await db.store().checkHealth();
    expect(clean).toMatchObject({ shortfall: 0, excess: 0 });
    // Control: the same shape WITH a task id is expected, so the filter is what kept it out.
    await insertMessage(db, {
      id: 'm-real',
      sessionId: 's1',
      taskId: 'task-s1',
      metadata: subagentMetadata({ toolCallId: 'tc-a', subagent: {} }),
      createdAt: hostTimestamp(db, AFTER(3n)),
    });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1 });
  });

  it('the excess side subtracts every subagent message, identity filter or not (revision 4)', async () => {
    // A row whose message exists but carries an empty task_id column: accounted for, not excess.
    await insertMessage(db, {
      id: 'm-empty-task',
      sessionId: 's1',
      taskId: '',
      metadata: subagentMetadata({ toolCallId: 'tc-e', subagent: {} }),
      createdAt: hostTimestamp(db, AFTER(1n)),
    });
    await insertSubagentRow(db, { id: 'r-e', sessionId: 's1', toolCallId: 'tc-e', observedAt: hostTimestamp(db, AFTER(1n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 0, excess: 0, verdict: 'healthy' });
  });

  it("malformed metadata (NULL, '', 'null', '{broken', non-objects) is counted as a non-match, never an error", async () => {
    const junk = [null, '', 'null', '{broken', '[1,2]', '"subagent_task"', '42', '{"normalized":"subagent_task"}'];
    for (const [i, metadata] of junk.entries())
      await insertMessage(db, { id: `m-junk-${i}`, sessionId: 's1', metadata, createdAt: hostTimestamp(db, AFTER(BigInt(i + 1))) });
    // A real miss among them still counts, and a real row is still accounted for.
    await insertSubagentMessage(db, { id: 'm-miss', sessionId: 's1', toolCallId: 'tc-miss', createdAt: hostTimestamp(db, AFTER(20n)) });
    await insertSubagentMessage(db, { id: 'm-ok', sessionId: 's2', toolCallId: 'tc-ok', createdAt: hostTimestamp(db, AFTER(21n)) });
    await insertSubagentRow(db, { id: 'r-ok', sessionId: 's2', toolCallId: 'tc-ok', observedAt: hostTimestamp(db, AFTER(21n)) });
    await insertSubagentRow(db, { id: 'r-junk', sessionId: 's1', toolCallId: 'tc-junk', observedAt: hostTimestamp(db, AFTER(22n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, excess: 1, collisions: 0, verdict: 'shortfall' });
  });

  it('AC-29: the scoped MAX is NULL when only backfilled and pre-activation rows exist, read as nothing_since_activation', async () => {
    await insertSubagentMessage(db, { id: 'm-old', sessionId: 's1', toolCallId: 'tc-old', createdAt: hostTimestamp(db, BEFORE(3600n)) });
    await insertSubagentRow(db, { id: 'r-backfill', sessionId: 's1', toolCallId: 'tc-old', source: 'backfill', observedAt: hostTimestamp(db, BEFORE(3600n)) });
    await insertSubagentRow(db, { id: 'r-pre', sessionId: 's2', toolCallId: 'tc-pre', executionId: EXEC_A, observedAt: hostTimestamp(db, BEFORE(1n)) });
    // The seed is meaningful: an unscoped MAX would answer, and would read as a live writer.
    const [unscoped] = await db.query<{ n: number | bigint | string }>('SELECT COUNT(observed_at) AS n FROM task_session_subagents');
    expect(Number(unscoped.n)).toBe(2);
    const report = await db.store().checkHealth();
    expect(report).toMatchObject({ shortfall: 0, excess: 0, collisions: 0, last_observed_at: null, verdict: 'nothing_since_activation' });
  });

  it('AC-29: a live frame without an execution id lands on a backfilled row inside the scope: the writer reads as alive', async () => {
    // The backfill took the row from a message dated after capture_since; the writer's frame of
    // the same subagent, keyed 'unknown' like the backfill's row, updates it (source and
    // observed_at are write-once). Leaving backfilled rows out of the MAX read this working
    // writer as nothing_since_activation.
    await insertSubagentMessage(db, { id: 'm-straddle', sessionId: 's1', toolCallId: 'tc-straddle', createdAt: hostTimestamp(db, AFTER(5n)) });
    await insertSubagentRow(db, { id: 'r-straddle', sessionId: 's1', toolCallId: 'tc-straddle', source: 'backfill', observedAt: hostTimestamp(db, AFTER(5n)) });
    const store = db.store({ clock: () => AFTER(60n) });
    expect(
      await store.recordFrame({ sessionId: 's1', taskId: 'task-s1', toolCallId: 'tc-straddle', toolStatus: 'completed', payload: { status: 'completed' } }),
    ).toBe('persisted');
    const [row] = await store.listBySession('s1');
    expect(row).toMatchObject({ source: 'backfill', agent_execution_id: 'unknown', tool_status: 'completed' });
    expect(await store.checkHealth()).toMatchObject({
      shortfall: 0,
      last_observed_at: '2026-07-25T17:20:05.000000Z',
      verdict: 'healthy',
    });
  });

  it('verdict precedence: a confirmed shortfall outranks nothing_since_activation', async () => {
    await insertSubagentMessage(db, { id: 'm-first', sessionId: 's1', toolCallId: 'tc-first', createdAt: hostTimestamp(db, AFTER(1n)) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, last_observed_at: null, verdict: 'shortfall' });
  });

  it('AC-25 self-heal window: real execution ids observed before execution_since count as what they are', async () => {
    // capture_since T0, execution_since an hour later (a rebuild committed, its key write failed).
    await db.query('UPDATE kandev_meta SET value = $1 WHERE key = $2', [formatKeyInstant(AFTER(3600n)), KEY.executionSince]);
    await insertSubagentMessage(db, { id: 'm-heal', sessionId: 's1', toolCallId: 'tc-heal', createdAt: hostTimestamp(db, AFTER(60n)) });
    await insertSubagentRow(db, { id: 'r-heal-a', sessionId: 's1', toolCallId: 'tc-heal', executionId: EXEC_A, observedAt: hostTimestamp(db, AFTER(60n)) });
    await insertSubagentRow(db, { id: 'r-heal-u', sessionId: 's1', toolCallId: 'tc-heal', executionId: 'unknown', observedAt: hostTimestamp(db, AFTER(61n)) });
    const report = await db.store().checkHealth();
    // The window is capture_since's, never execution_since's: both rows are in it, the real
    // UUID row and the sentinel row are two identities (one collision), not one folded row.
    expect(report).toMatchObject({
      state: 'activated',
      shortfall: 0,
      excess: 0,
      collisions: 1,
      last_observed_at: '2026-07-25T17:21:01.000000Z',
      verdict: 'healthy',
    });
  });
});
