// report()'s window and keys are exact to the microsecond (AC-24e) on every statement: a row
// or message 1 µs before `since` is out and one at it is in; 1 µs before `until` is in and
// one at it is out; a row at a key is on the key's after side and 1 µs before it is not.
// SQLite: for every stored form of a host timestamp (trimmed fractions, offsets that move the
// local date either way, RFC3339 T/Z, nanosecond digits). PostgreSQL: identical under three
// session TimeZones. Then: every kind of bad input is rejected with a clear coded error.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPostgresStore, SubagentContextError, type SubagentContextReport, type SubagentContextStore } from '../src/index.js';
import { formatKeyInstant, formatMicros } from '../src/instant.js';
import { SQLITE_FORMS, sqliteForm } from './helpers/sqlite-forms.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { byDialect } from './helpers/by-dialect.js';
import { setKeys } from './helpers/activation-keys.js';
import { insertChatMessage, insertSession } from './helpers/seed-host-rows.js';
import { insertSubagentRow } from './helpers/seed-subagent-rows.js';
import { MICRO } from './helpers/host-timestamp.js';

const HOUR = 3_600_000_000_000n;

interface Boundaries {
  since: bigint;
  key: bigint;
  until: bigint;
}

// since at midnight UTC (an offset form moves the local date), until at a whole second, the
// keys on a fraction with trailing zeros; and a set where until crosses midnight.
const SETS: Boundaries[] = [
  { since: 1_785_024_000_000_000_000n, key: 1_785_030_000_270_000_000n, until: 1_785_040_000_000_000_000n },
  { since: 1_785_000_000_500_000_000n, key: 1_785_010_000_000_001_000n, until: 1_785_110_400_000_000_000n },
];

/**
 * Rows (session s-rows, no messages), each its own turn:
 *   w-before since-1µs · w-at since · k-before key-1µs ('unknown', live) · k-at key ('unknown', live)
 *   w-last until-1µs · w-end until
 * Sessions with one message each: m-before (since-1µs), m-at (since), m-last (until-1µs), m-end (until).
 * All three keys are `key`.
 */
async function seedBoundaries(db: TestDb, b: Boundaries, text: (ns: bigint) => string): Promise<void> {
  await insertSession(db, 's-rows', 'T1');
  const rows: [string, bigint, string][] = [
    ['w-before', b.since - MICRO, 'exec-1'],
    ['w-at', b.since, 'exec-1'],
    ['k-before', b.key - MICRO, 'unknown'],
    ['k-at', b.key, 'unknown'],
    ['w-last', b.until - MICRO, 'exec-2'],
    ['w-end', b.until, 'exec-2'],
  ];
  for (const [id, at, executionId] of rows) {
    await insertSubagentRow(db, {
      id,
      sessionId: 's-rows',
      taskId: 'T1',
      turnId: `turn-${id}`,
      source: 'live',
      executionId,
      observedAt: text(at),
      settledAt: null,
      totalTokens: null,
    });
  }
  for (const [id, at] of [
    ['m-before', b.since - MICRO],
    ['m-at', b.since],
    ['m-last', b.until - MICRO],
    ['m-end', b.until],
  ] as const) {
    await insertSession(db, `s-${id}`, `T-${id}`);
    await insertChatMessage(db, id, `s-${id}`, text(at));
  }
  const key = formatKeyInstant(b.key);
  await setKeys(db, { subagent_context_capture_since: key, subagent_context_backfill_through: key, subagent_context_execution_since: key });
}

/** In the window: w-at, k-before, k-at, w-last. Known from the key: k-at, w-last. */
function expectWindow(r: SubagentContextReport): void {
  expect(r.provenance).toEqual({ rows: 4, live: 4, backfill: 0, live_before_capture_since: 2, shadowed_backfill_rows: 0 });
  expect(r.fan_out).toMatchObject({ known: [{ subagents: 1, turns: 2 }], unknown: [{ subagents: 1, turns: 2 }], turns_past_until: 0, turns_before_since: 0 });
  expect(r.executions).toEqual({ distinct: 2, identified_rows: 2, unknown_rows: 2, unknown_backfill_rows: 0, unknown_live_rows_since_execution_since: 1 });
  // s-rows (its rows), s-m-at and s-m-last (their messages).
  expect(r.cards).toMatchObject({ tasks: 3, sessions: 3, subagent_contexts: 4 });
}

describeBothDialects('report: exact windows and keys', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(async () => db.close());

  async function reset(): Promise<void> {
    for (const t of ['task_session_subagents', 'task_session_messages', 'task_sessions', 'kandev_meta']) await db.query(`DELETE FROM ${t}`);
  }

  const windowOf = (b: Boundaries) => ({ since: formatKeyInstant(b.since), until: formatKeyInstant(b.until) });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    for (const form of SQLITE_FORMS.filter((f) => f !== 'seconds')) {
      it(`SQLite, host timestamps in ${form} form: since, until and the keys are exact to 1 µs`, async () => {
        for (const b of SETS) {
          await reset();
          await seedBoundaries(db, b, (ns) => sqliteForm(ns, form));
          expectWindow(await db.store().report(windowOf(b)));
        }
      });
    }

    it('SQLite, second-precision host text (no fraction) at whole-second bounds', async () => {
      const b = { since: 1_785_024_000_000_000_000n, key: 1_785_030_000_000_000_000n, until: 1_785_040_000_000_000_000n };
      // 1 µs before a whole second cannot be written without a fraction: use 1 s before.
      const second = 1_000_000n * MICRO;
      await insertSession(db, 's1', 'T1');
      const at = (id: string, ns: bigint) =>
        insertSubagentRow(db, {
          id,
          sessionId: 's1',
          taskId: 'T1',
          turnId: id,
          source: 'live',
          executionId: 'unknown',
          observedAt: sqliteForm(ns, 'seconds'),
          settledAt: null,
          totalTokens: null,
        });
      await at('before', b.since - second);
      await at('at', b.since);
      await at('last', b.until - second);
      await at('end', b.until);
      expect((await db.store().report(windowOf(b))).provenance.rows).toBe(2);
    });
  }

  it('a bound with sub-microsecond digits falls between the two microseconds around it', async () => {
    const b = SETS[1];
    await seedBoundaries(db, b, (ns) => byDialect(dialect, { sqlite: () => sqliteForm(ns, 'trimmed'), postgres: () => formatMicros(ns) })());
    // since 500 ns before w-at: w-before (1 µs before w-at) is still out; until 500 ns before w-end: w-last in, w-end out.
    const r = await db.store().report({ since: formatKeyInstant(b.since - 500n), until: formatKeyInstant(b.until - 500n) });
    expectWindow(r);
    expect(r.window).toEqual({ since: formatKeyInstant(b.since - 500n), until: formatKeyInstant(b.until - 500n) });
  });

  it('an RFC3339 window with an offset is the same instant as its UTC form', async () => {
    const b = SETS[0];
    await seedBoundaries(db, b, (ns) => byDialect(dialect, { sqlite: () => sqliteForm(ns, 'plus02'), postgres: () => formatMicros(ns) })());
    const since = formatKeyInstant(b.since + 5n * HOUR).replace('Z', '+05:00');
    // b.since is midnight UTC: 05:00+05:00 names the same instant.
    expect(since).toMatch(/T05:00:00\.000000000\+05:00$/);
    expectWindow(await db.store().report({ since, until: formatKeyInstant(b.until) }));
  });

  if (byDialect(dialect, { sqlite: false, postgres: true })) {
    it('PostgreSQL: identical reports under session TimeZone UTC, America/Los_Angeles and Pacific/Kiritimati', async () => {
      const reports: Record<string, SubagentContextReport[]> = {};
      for (const zone of ['UTC', 'America/Los_Angeles', 'Pacific/Kiritimati']) {
        const pool = poolFor({ connectionString: db.location, max: 2, options: `-c TimeZone=${zone}` });
        try {
          expect((await pool.query('SHOW TimeZone')).rows[0].TimeZone).toBe(zone);
          const store: SubagentContextStore = createPostgresStore(pool);
          reports[zone] = [];
          for (const b of SETS) {
            await reset();
            await seedBoundaries(db, b, formatMicros);
            const r = await store.report(windowOf(b));
            expectWindow(r);
            reports[zone].push(r);
          }
        } finally {
          await pool.end();
        }
      }
      expect(reports['America/Los_Angeles']).toEqual(reports.UTC);
      expect(reports['Pacific/Kiritimati']).toEqual(reports.UTC);
    });
  }

  it('bad input is rejected with a coded SubagentContextError before any statement runs', async () => {
    const store = db.store();
    const rejects = async (options: unknown, code: string, message: RegExp) => {
      const err = await store.report(options as never).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(options)).toBeInstanceOf(SubagentContextError);
      expect((err as SubagentContextError).code, JSON.stringify(options)).toBe(code);
      expect((err as Error).message).toMatch(message);
    };
    for (const since of ['yesterday', '2026-03-01', '2026-03-01 10:00:00Z', '2026-03-01T10:00:00', '2026-02-30T10:00:00Z', '2026-03-01T25:00:00Z', '']) {
      await rejects({ since }, 'invalid_report_window', /^since ".*" is not an RFC3339 instant/);
    }
    await rejects({ until: 1_785_000_000 }, 'invalid_report_window', /^until must be an RFC3339 instant string, got number/);
    await rejects({ since: '2026-03-01T10:00:00Z', until: '2026-03-01T10:00:00Z' }, 'invalid_report_window', /must be before until/);
    await rejects({ since: '2026-03-01T12:00:00+02:00', until: '2026-03-01T09:59:59Z' }, 'invalid_report_window', /must be before until/);
    await rejects({ since: '1969-12-31T23:59:59Z' }, 'invalid_report_window', /outside 1970/);
    await rejects({ until: '9999-12-31T23:00:00-05:00' }, 'invalid_report_window', /outside 1970/);
    // Within 9999 as given, year 10000 once rounded up to the microsecond, as bounds are bound: PostgreSQL failed on it.
    await rejects({ until: '9999-12-31T23:59:59.9999995Z' }, 'invalid_report_window', /outside 1970/);
    await rejects({ since: '9999-12-31T23:59:59.9999991Z' }, 'invalid_report_window', /outside 1970/);
    await rejects({ taskIds: 'T1' }, 'invalid_report_scope', /^taskIds must be an array/);
    await rejects({ taskIds: ['T1', ''] }, 'invalid_report_scope', /^taskIds\[1\] must be a non-empty string/);
    await rejects({ taskIds: [42] }, 'invalid_report_scope', /^taskIds\[0\] must be a non-empty string, got number/);
    await rejects({ taskIds: ['a\u0000b'] }, 'invalid_report_scope', /NUL or an unpaired surrogate/);
    await rejects({ taskIds: ['\uD800'] }, 'invalid_report_scope', /NUL or an unpaired surrogate/);
    await rejects('2026-03-01T10:00:00Z', 'invalid_report_options', /must be an object/);
    await rejects({ sinse: '2026-03-01T10:00:00Z' }, 'invalid_report_options', /unknown report option sinse/);
    // Lower-case t and z are RFC3339 too.
    await expect(store.report({ since: '2026-03-01t10:00:00z' })).resolves.toMatchObject({ window: { since: '2026-03-01T10:00:00.000000000Z' } });
  });

  it('a store the package never migrated: report() rejects with missing_tables', async () => {
    const bare = await openTestDb(dialect); // host tables only
    try {
      const err = await bare
        .store()
        .report()
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SubagentContextError);
      expect((err as SubagentContextError).code).toBe('missing_tables');
      expect((err as Error).message).toMatch(/missing tables kandev_meta, task_session_subagents/);
    } finally {
      await bare.close();
    }
  });
});
