// AC-24e's one-microsecond boundary on every statement the health check runs: a message or
// row exactly 1 µs before capture_since is outside the window, one exactly at it is inside;
// a key with sub-microsecond digits puts the boundary between them. On PostgreSQL the result
// is identical under session TimeZone UTC, America/Los_Angeles and Pacific/Kiritimati; on
// SQLite it holds for every stored form the Go driver produces (trimmed fractions, no
// fraction, nanosecond digits, ±HH:MM offsets, RFC3339 T/Z).
import { poolFor } from '../scripts/lib/postgres-database.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { formatKeyInstant, formatMicros } from '../src/instant.js';
import type { HealthReport } from '../src/types.js';
import { sqliteForm, type SqliteForm } from './helpers/sqlite-forms.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { MICRO } from './helpers/host-timestamp.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';

const EXEC_B = '0b7e7d52-6f5e-4c2e-9d0a-2a3c7b1f0e11';

/**
 * One message and one row 1 µs before the boundary, one of each exactly at it, and a
 * cross-execution duplicate on each side. Inside the window: message tc-at (no row: the
 * shortfall), row tc-row-at (no message: the excess) and its duplicate (one collision).
 */
async function seedBoundary(db: TestDb, boundaryNs: bigint, text: (ns: bigint) => string): Promise<void> {
  const before = boundaryNs - MICRO;
  await insertSubagentMessage(db, { id: 'm-before', sessionId: 's1', toolCallId: 'tc-before', createdAt: text(before) });
  await insertSubagentMessage(db, { id: 'm-at', sessionId: 's1', toolCallId: 'tc-at', createdAt: text(boundaryNs) });
  await insertSubagentRow(db, { id: 'r-before', sessionId: 's1', toolCallId: 'tc-row-before', observedAt: text(before) });
  await insertSubagentRow(db, { id: 'r-before-b', sessionId: 's1', toolCallId: 'tc-row-before', executionId: EXEC_B, observedAt: text(before) });
  await insertSubagentRow(db, { id: 'r-at', sessionId: 's1', toolCallId: 'tc-row-at', observedAt: text(boundaryNs) });
  await insertSubagentRow(db, { id: 'r-at-b', sessionId: 's1', toolCallId: 'tc-row-at', executionId: EXEC_B, observedAt: text(boundaryNs) });
}

function expectedAt(boundaryNs: bigint): Partial<HealthReport> {
  // 1 µs before is outside (else 2/2/2); exactly at is inside (else 0/0/0 and NULL).
  return { shortfall: 1, excess: 1, collisions: 1, last_observed_at: `${formatMicros(boundaryNs).replace(' ', 'T')}Z`, verdict: 'shortfall' };
}

// Boundaries: a whole second; a fraction with trailing zeros; a fraction crossing midnight
// UTC (so the -03:00 form is on the previous local date).
const BOUNDARIES = [1_785_000_000_000_000_000n, 1_785_000_000_270_000_000n, 1_785_024_000_000_000_000n];

describeBothDialects('health: one-microsecond boundary', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
  });
  afterEach(async () => db.close());

  async function check(boundaryNs: bigint, key: string, text: (ns: bigint) => string, store = db.store()): Promise<HealthReport> {
    await db.query('DELETE FROM task_session_messages');
    await db.query('DELETE FROM task_session_subagents');
    await db.query('DELETE FROM kandev_meta');
    await setKeys(db, { [KEY.captureSince]: key });
    await seedBoundary(db, boundaryNs, text);
    return store.checkHealth();
  }

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    const forms: SqliteForm[] = ['canonical', 'trimmed', 'plus02', 'minus03', 'rfc3339', 'nanos'];
    for (const form of forms) {
      it(`SQLite, host timestamps in ${form} form: 1 µs before is outside, exactly at is inside`, async () => {
        for (const b of BOUNDARIES) {
          expect(await check(b, formatKeyInstant(b), (ns) => sqliteForm(ns, form))).toMatchObject(expectedAt(b));
        }
      });
    }

    it('SQLite, nanosecond digits in the column: 1 ns before a nine-digit key is outside', async () => {
      const key = 1_785_000_000_270_000_123n;
      // Rows 1 ns before and exactly at a key that is not on a microsecond.
      const report = await check(key, formatKeyInstant(key), (ns) => sqliteForm(ns === key - MICRO ? key - 1n : ns, 'nanos'));
      expect(report).toMatchObject({ shortfall: 1, excess: 1, collisions: 1, last_observed_at: '2026-07-25T17:20:00.270000Z' });
    });
  }

  it('a key with sub-microsecond digits puts the boundary between the two microseconds', async () => {
    const at = 1_785_000_000_270_001_000n; // the first whole microsecond at or after the key
    const key = formatKeyInstant(at - 500n); // ...00.270000500Z
    const text = (ns: bigint) => byDialect(dialect, { sqlite: () => sqliteForm(ns, 'trimmed'), postgres: () => formatMicros(ns) })();
    expect(await check(at, key, text)).toMatchObject(expectedAt(at));
  });

  it("AC-24e same day: a row later on the key's own calendar day is after a second-precision key", async () => {
    const text = (ns: bigint) => byDialect(dialect, { sqlite: () => sqliteForm(ns, 'canonical'), postgres: () => formatMicros(ns) })();
    await setKeys(db, { [KEY.captureSince]: '2026-07-30T01:39:37Z' });
    // 23h59m after the key, same date: a raw text comparison reads it as BEFORE the key.
    await insertSubagentMessage(db, { id: 'm-late', sessionId: 's1', toolCallId: 'tc-late', createdAt: text(1_785_455_999_000_000_000n) });
    // Earlier the same day, before the key.
    await insertSubagentMessage(db, { id: 'm-early', sessionId: 's1', toolCallId: 'tc-early', createdAt: text(1_785_369_601_000_000_000n) });
    expect(await db.store().checkHealth()).toMatchObject({ shortfall: 1, excess: 0 });
  });

  if (byDialect(dialect, { sqlite: false, postgres: true })) {
    it('PostgreSQL: identical results under session TimeZone UTC, America/Los_Angeles and Pacific/Kiritimati', async () => {
      const results: Record<string, HealthReport[]> = {};
      for (const zone of ['UTC', 'America/Los_Angeles', 'Pacific/Kiritimati']) {
        const pool = poolFor({ connectionString: db.location, max: 2, options: `-c TimeZone=${zone}` });
        try {
          const [{ TimeZone: setting }] = (await pool.query('SHOW TimeZone')).rows as { TimeZone: string }[];
          expect(setting).toBe(zone);
          const store = createPostgresStore(pool);
          results[zone] = [];
          for (const b of BOUNDARIES) {
            const report = await check(b, formatKeyInstant(b), formatMicros, store);
            expect(report).toMatchObject(expectedAt(b));
            results[zone].push(report);
          }
          const sub = 1_785_000_000_270_001_000n;
          const report = await check(sub, formatKeyInstant(sub - 500n), formatMicros, store);
          expect(report).toMatchObject(expectedAt(sub));
          results[zone].push(report);
        } finally {
          await pool.end();
        }
      }
      expect(results['America/Los_Angeles']).toEqual(results.UTC);
      expect(results['Pacific/Kiritimati']).toEqual(results.UTC);
    });
  }
});
