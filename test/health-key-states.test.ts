// AC-24c's four key states, AC-28a's absent-key branch, and the keys as read: checkHealth()
// classifies by key PRESENCE (rows exist in every state), reports the raw values verbatim,
// does not run the comparison without capture_since, and refuses a window it cannot bind.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HealthCheckError } from '../src/health/errors.js';
import { formatKeyInstant } from '../src/instant.js';
import type { HealthReport } from '../src/types.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { hostTimestamp, MICRO, SECOND } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const T0 = 1_785_000_000_000_000_000n; // 2026-07-25T17:20:00Z
const CAPTURE = formatKeyInstant(T0 + 123_456_789n);
const EXECUTION = formatKeyInstant(T0 + 5n * SECOND);

describeBothDialects('health: activation-key states', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    // Rows and messages exist in every state: AC-24c says no state is inferred from them.
    await insertSubagentMessage(db, { id: 'm1', sessionId: 's1', toolCallId: 'tc-1', createdAt: hostTimestamp(db, T0 + 10n * SECOND) });
    await insertSubagentRow(db, { id: 'r1', sessionId: 's1', toolCallId: 'tc-1', observedAt: hostTimestamp(db, T0 + 10n * SECOND) });
  });
  afterEach(async () => db.close());

  const cases: { state: HealthReport['state']; capture: boolean; execution: boolean }[] = [
    { state: 'activated', capture: true, execution: true },
    { state: 'capture_only', capture: true, execution: false },
    { state: 'execution_only', capture: false, execution: true },
    { state: 'not_activated', capture: false, execution: false },
  ];
  for (const c of cases) {
    it(`classifies capture_since ${c.capture ? 'present' : 'absent'} / execution_since ${c.execution ? 'present' : 'absent'} as ${c.state}`, async () => {
      if (c.capture) {
        await setKeys(db, { [KEY.captureSince]: CAPTURE, [KEY.backfillThrough]: '' });
      }
      if (c.execution) await setKeys(db, { [KEY.executionSince]: EXECUTION });
      const report = await db.store().checkHealth();
      expect(report.state).toBe(c.state);
      expect(report.keys).toEqual({
        capture_since: c.capture ? CAPTURE : null,
        backfill_through: c.capture ? '' : null,
        execution_since: c.execution ? EXECUTION : null,
      });
      if (c.capture) {
        // The comparison ran: one message, one row, both in the window.
        expect(report).toMatchObject({ shortfall: 0, excess: 0, collisions: 0, last_observed_at: '2026-07-25T17:20:10.000000Z', verdict: 'healthy' });
      } else {
        // AC-28a: not run; the absent key is the signal.
        expect(report).toMatchObject({ shortfall: null, excess: null, collisions: null, last_observed_at: null, verdict: 'not_activated' });
      }
    });
  }

  it('AC-28a: without capture_since the comparison is not run at all (its table may even be gone)', async () => {
    await setKeys(db, { [KEY.executionSince]: EXECUTION });
    await db.exec('DROP TABLE task_session_subagents');
    const report = await db.store().checkHealth();
    expect(report).toEqual({
      keys: { capture_since: null, backfill_through: null, execution_since: EXECUTION },
      state: 'execution_only',
      shortfall: null,
      excess: null,
      collisions: null,
      last_observed_at: null,
      verdict: 'not_activated',
    });
    // ...whereas with capture_since present the same missing table is an error naming it.
    await setKeys(db, { [KEY.captureSince]: CAPTURE });
    await expect(db.store().checkHealth()).rejects.toMatchObject({
      name: 'HealthCheckError',
      code: 'missing_tables',
      message: expect.stringContaining('task_session_subagents'),
    });
  });

  it('reports legacy second-precision keys verbatim and still bounds the window at that second', async () => {
    const legacy = '2026-07-25T17:20:10Z'; // what the pre-amendment build wrote (AC-24 point 5)
    await setKeys(db, { [KEY.captureSince]: legacy, [KEY.backfillThrough]: '2026-07-25T17:20:09Z' });
    await insertSubagentMessage(db, { id: 'm-before', sessionId: 's1', toolCallId: 'tc-before', createdAt: hostTimestamp(db, T0 + 10n * SECOND - MICRO) });
    const report = await db.store().checkHealth();
    expect(report.keys).toEqual({ capture_since: legacy, backfill_through: '2026-07-25T17:20:09Z', execution_since: null });
    expect(report.state).toBe('capture_only');
    // tc-1 (exactly at the key) is inside and has its row; tc-before (1 µs earlier) is outside.
    expect(report).toMatchObject({ shortfall: 0, excess: 0, last_observed_at: '2026-07-25T17:20:10.000000Z', verdict: 'healthy' });
  });

  // The last three parse, but bound no window the columns can hold (1970 … 9999 once rounded up
  // to the microsecond, the report's range): PostgreSQL failed on year 0000 where SQLite answered.
  for (const bad of [
    '',
    'yesterday',
    '2026-07-25 17:20:10 UTC',
    '2026-13-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999999Z',
    '9999-12-31T23:59:59.9999995Z',
  ]) {
    it(`rejects a capture_since that is not an instant (${JSON.stringify(bad)}) with a HealthCheckError`, async () => {
      await setKeys(db, { [KEY.captureSince]: bad, [KEY.executionSince]: EXECUTION });
      const err = await db
        .store()
        .checkHealth()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(HealthCheckError);
      expect(err).toMatchObject({ code: 'invalid_capture_since', keys: { capture_since: bad, backfill_through: null, execution_since: EXECUTION } });
      expect((err as Error).message).toContain('subagent_context_capture_since');
    });
  }

  it('rejects with missing_tables when kandev_meta does not exist', async () => {
    await db.exec('DROP TABLE kandev_meta');
    await expect(db.store().checkHealth()).rejects.toMatchObject({
      name: 'HealthCheckError',
      code: 'missing_tables',
      message: expect.stringContaining('kandev_meta'),
    });
  });
});
