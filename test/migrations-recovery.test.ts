// runMigrations() when something fails (AC-33a, AC-33b self-heal, DESIGN §2): a failed
// upgrade rolls back whole and the next run succeeds, a lost or unwritten execution_since is
// written again by the next run, and runMigrations() reports, never rejects.
import { expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore, createSqliteStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { endStateFacts, indexSet, metaKeys, rawRows, seedPreAmendmentRows, stageProgressKeys, stepStatuses, tableExists } from './helpers/migration-db.js';
import { describeBothDialects, type TestDb } from './helpers/test-db.js';
import { testDbsPerTest } from './helpers/test-dbs-per-test.js';
import { injectUpgradeFailure, removeUpgradeFailure } from './helpers/upgrade-failure.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { createFailingTrigger, dropFailingTrigger } from './helpers/injected-triggers.js';
import { BACKFILL_PROGRESS_KEYS } from '../src/migrations/backfill-step.js';

const KEY_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;

describeBothDialects('runMigrations: schema', (dialect) => {
  const db = testDbsPerTest(dialect);

  it('AC-33b self-heal: execution_since lost after a successful run is written again by the next, with no rebuild firing', async () => {
    const d = await db('legacy');
    const store = d.store({ clock: steppingClock() });
    expect(stepStatuses(await store.runMigrations()).upgrade_pre_amendment_table).toBe('applied');
    const written = (await metaKeys(d))[ACTIVATION_KEYS.executionSince];
    await d.query(`DELETE FROM kandev_meta WHERE key = $1`, [ACTIVATION_KEYS.executionSince]);
    const report = await store.runMigrations();
    expect(report.ok).toBe(true);
    expect(stepStatuses(report)).toMatchObject({ upgrade_pre_amendment_table: 'skipped', create_subagent_table: 'skipped', record_execution_since: 'applied' });
    const healed = (await metaKeys(d))[ACTIVATION_KEYS.executionSince];
    expect(healed).toMatch(KEY_FORM);
    expect(healed > written).toBe(true); // sampled now, by this run
  });

  it('AC-33b fourth state: the rebuild commits but the execution_since write fails — the backfill still runs, the next run writes the key', async () => {
    const d = await db('legacy');
    await insertSession(d, 's1');
    await insertMessage(d, {
      id: 'm1',
      sessionId: 's1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00'),
      metadata: subagentMetadata({ toolCallId: 't1', subagent: {} }),
    });
    await d.exec(`CREATE TABLE kandev_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '')`);
    await createFailingTrigger(d, 'kandev_meta', `NEW.key = '${ACTIVATION_KEYS.executionSince}'`);
    const logger = recordingLogger();
    const store = d.store({ clock: steppingClock(), logger });
    const first = await store.runMigrations();
    expect(stepStatuses(first)).toMatchObject({
      upgrade_pre_amendment_table: 'applied',
      record_execution_since: 'failed',
      backfill_subagent_contexts: 'applied',
    });
    expect(logger.lines.map((w) => w.fields.step)).toEqual(['record_execution_since']);
    expect(Object.keys(await metaKeys(d)).sort()).toEqual([ACTIVATION_KEYS.backfillThrough, ACTIVATION_KEYS.captureSince].sort());

    await dropFailingTrigger(d, 'kandev_meta');
    const second = await store.runMigrations();
    expect(second.ok).toBe(true);
    expect(stepStatuses(second)).toMatchObject({
      upgrade_pre_amendment_table: 'skipped',
      record_execution_since: 'applied',
      backfill_subagent_contexts: 'skipped',
    });
    expect((await metaKeys(d))[ACTIVATION_KEYS.executionSince]).toMatch(KEY_FORM);
  });

  it('AC-33a: a failing upgrade rolls back whole, writes no key, does not abort the pass, and the next run succeeds', async () => {
    const d = await db('legacy');
    await insertSession(d, 's1');
    await insertSession(d, 's2');
    await seedPreAmendmentRows(d);
    await insertMessage(d, {
      id: 'm1',
      sessionId: 's1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00'),
      metadata: subagentMetadata({ toolCallId: 'toolu_new', subagent: {} }),
    });
    const before = await rawRows(d);
    const indexesBefore = await indexSet(d);
    await injectUpgradeFailure(d);
    const logger = recordingLogger();
    const store = d.store({ clock: steppingClock(), logger });

    const failed = await store.runMigrations(); // resolves: boot is not aborted
    expect(failed.ok).toBe(false);
    const upgrade = failed.steps.find((s) => s.name === 'upgrade_pre_amendment_table');
    expect(upgrade?.status).toBe('failed');
    expect(upgrade?.error).toMatch(byDialect(dialect, { sqlite: /already a table named idx_subagents_observed_at/, postgres: /injected/ }));
    expect(stepStatuses(failed)).toMatchObject({ record_execution_since: 'skipped', backfill_subagent_contexts: 'skipped' });
    expect(logger.lines.map((w) => w.fields.step)).toEqual(['upgrade_pre_amendment_table']); // AC-20
    expect(logger.lines[0].msg).toContain('upgrade_pre_amendment_table');
    // the pre-amendment table is whole: shape, rows, indexes; nothing half-built left behind
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: false, threeColumnUnique: false, twoColumnUnique: true });
    expect(await rawRows(d)).toEqual(before);
    expect(await indexSet(d)).toEqual(indexesBefore);
    expect(await tableExists(d, 'task_session_subagents_pre_amendment')).toBe(false);
    expect(await metaKeys(d)).toEqual({}); // no execution_since (AC-33a), no backfill keys (AC-33c)

    await removeUpgradeFailure(d);
    const retried = await store.runMigrations();
    expect(retried.ok).toBe(true);
    expect(stepStatuses(retried)).toMatchObject({
      upgrade_pre_amendment_table: 'applied',
      record_execution_since: 'applied',
      backfill_subagent_contexts: 'applied',
    });
    expect(await endStateFacts(d)).toEqual({ executionColumnNotNull: true, threeColumnUnique: true, twoColumnUnique: false });
    expect(await rawRows(d).then((rows) => rows.length)).toBe(before.length + 1); // + the backfilled message
    expect(Object.keys(await metaKeys(d)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
  });

  it('DESIGN §2: runMigrations() never rejects — a dead connection, a throwing clock and a throwing logger are reported, not thrown', async () => {
    const d = await db();
    await insertSession(d, 's1');
    await insertMessage(d, {
      id: 'm1',
      sessionId: 's1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00'),
      metadata: subagentMetadata({ toolCallId: 't1', subagent: {} }),
    });
    const throwingLogger = {
      warn: () => {
        throw new Error('logger down');
      },
    };

    // A clock that fails: the two steps that need an instant fail and roll back; nothing else.
    const brokenClock = await d
      .store({
        clock: () => {
          throw new Error('clock down');
        },
        logger: throwingLogger,
      })
      .runMigrations();
    expect(brokenClock.ok).toBe(false);
    expect(stepStatuses(brokenClock)).toMatchObject({
      create_subagent_table: 'applied',
      record_execution_since: 'failed',
      backfill_subagent_contexts: 'failed',
    });
    // No activation key; what remains is the chunked backfill's own progress (the mark it read
    // before its first chunk, and on SQLite its first phase's keys), from which the next run resumes.
    expect(Object.keys(await metaKeys(d)).sort()).toEqual([BACKFILL_PROGRESS_KEYS.through, ...stageProgressKeys(dialect)].sort());
    expect(await d.query(`SELECT id FROM task_session_subagents`)).toEqual([]); // the INSERT rolled back with the key writes

    // A connection that is gone: every step fails, and the promise still resolves.
    const dead = await deadStore(d);
    const report = await dead.store.runMigrations();
    await dead.cleanup();
    expect(report.ok).toBe(false);
    expect(report.steps.filter((s) => s.status === 'failed').map((s) => s.name)).toEqual([
      'ensure_kandev_meta',
      'create_subagent_table',
      ...byDialect(dialect, { sqlite: [], postgres: ['ensure_json_helpers'] }),
      'upgrade_pre_amendment_table',
      'record_execution_since',
    ]);
    for (const step of report.steps.filter((s) => s.status === 'failed')) expect(step.error).toBeTruthy();
  });
});

/** A store whose connection is already closed (SQLite) or whose pool has ended (PostgreSQL). */
async function deadStore(d: TestDb): Promise<{ store: ReturnType<TestDb['store']>; cleanup: () => Promise<void> }> {
  if (byDialect(d.dialect, { sqlite: true, postgres: false })) {
    const closed = new Database(d.location);
    closed.close();
    return { store: createSqliteStore(closed, { logger: { warn: () => undefined } }), cleanup: async () => undefined };
  }
  const pool = poolFor({ connectionString: d.location });
  await pool.end();
  return { store: createPostgresStore(pool, { logger: { warn: () => undefined } }), cleanup: async () => undefined };
}
