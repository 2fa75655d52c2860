// AC-33a's degraded state (issue 11 item 7): the AC-33 upgrade failed, or never ran, and the
// pre-amendment table survives with its two-column key (schema/legacy/<dialect>). "The
// amended upsert's three-column conflict target cannot match the surviving two-column
// constraint, so every live write fails, and each one increments `failed` and logs at WARN
// per AC-27" — and the state must not be silent: execution_since stays absent (AC-24b), the
// legacy rows are untouched, and once a later boot's upgrade succeeds the same store writes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { addColumnSchema as postgresAddColumns } from '../generated/postgres/index.js';
import { addColumnSchema as sqliteAddColumns } from '../generated/sqlite/index.js';
import { ACTIVATION_KEYS, type SubagentContextStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { expectCounterIdentity, watchUnhandled } from './helpers/faults.js';
import { frame } from './helpers/live-db.js';
import { endStateFacts, LEGACY_COLUMNS, metaKeys, rawRows, seedPreAmendmentRows, tableExists } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { injectUpgradeFailure, removeUpgradeFailure } from './helpers/upgrade-failure.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession } from './helpers/seed-host-rows.js';

describeBothDialects('faults: AC-33a degraded state, the two-column key survives', (dialect) => {
  let db: TestDb;
  let unhandled: ReturnType<typeof watchUnhandled>;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'legacy');
    await insertSession(db, 's1');
    await insertSession(db, 's2');
    await seedPreAmendmentRows(db); // includes s1/toolu_a: a frame with that key must not touch it
    unhandled = watchUnhandled();
  });
  afterEach(async () => {
    unhandled.stop();
    await db.close();
  });

  /** Every write against the surviving table: failed, WARN-logged, counted; the rows untouched. */
  async function expectEveryWriteFails(store: SubagentContextStore, logger: ReturnType<typeof recordingLogger>): Promise<void> {
    const before = await rawRows(db);
    const countersBefore = store.counters();
    const linesBefore = logger.lines.length;
    expect(await store.recordFrame(frame({ sessionId: 's1', toolCallId: 'toolu_a', toolStatus: 'completed' }))).toBe('failed');
    expect(await store.recordFrame(frame({ sessionId: 's1', toolCallId: 'toolu_new', executionId: null }))).toBe('failed');
    expect(
      await store.recordFrames([
        frame({ sessionId: 's2', toolCallId: 'toolu_x' }),
        frame({ toolCallId: '' }),
        frame({ sessionId: 's1', toolCallId: 'toolu_b' }),
      ]),
    ).toEqual(['failed', 'skipped_no_identity', 'failed']);
    const lines = logger.lines.slice(linesBefore);
    expect(lines.map((l) => [l.fields.session_id, l.fields.tool_call_id])).toEqual([
      ['s1', 'toolu_a'],
      ['s1', 'toolu_new'],
      ['s2', 'toolu_x'],
      ['s1', 'toolu_b'],
    ]);
    for (const line of lines) expect(line.fields).toMatchObject({ dialect, error: expect.any(String) });
    const c = store.counters();
    expect({
      attempted: c.attempted - countersBefore.attempted,
      failed: c.failed - countersBefore.failed,
      persisted: c.persisted - countersBefore.persisted,
    }).toEqual({
      attempted: 5,
      failed: 4,
      persisted: 0,
    });
    expectCounterIdentity(c);
    expect(await rawRows(db)).toEqual(before); // the legacy rows, byte for byte
    expect(await endStateFacts(db)).toMatchObject({ threeColumnUnique: false, twoColumnUnique: true });
    const keys = (await tableExists(db, 'kandev_meta')) ? await metaKeys(db) : {};
    expect(ACTIVATION_KEYS.executionSince in keys).toBe(false); // AC-24b: the state is detectable
    expect(unhandled.errors).toEqual([]);
  }

  it('the upgrade never ran: every frame is failed + WARN', async () => {
    const logger = recordingLogger();
    await expectEveryWriteFails(db.store({ clock: steppingClock(), logger }), logger);
  });

  it('the upgrade failed (rolled back whole): every frame is failed + WARN; after a later successful upgrade the same store writes', async () => {
    await injectUpgradeFailure(db);
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    const failedBoot = await store.runMigrations(); // resolves: boot goes on (AC-33a)
    expect(failedBoot.ok).toBe(false);
    const bootWarnings = logger.lines.length;
    expect(bootWarnings).toBeGreaterThan(0); // the failed upgrade itself is WARN-logged (AC-20)
    expect(await endStateFacts(db)).toEqual({ executionColumnNotNull: false, threeColumnUnique: false, twoColumnUnique: true });

    await expectEveryWriteFails(store, logger);
    expect(logger.lines.length - bootWarnings).toBe(4);

    // The next boot retries the upgrade; once it holds, the same store writes again.
    await removeUpgradeFailure(db);
    expect((await store.runMigrations()).ok).toBe(true);
    expect(await store.recordFrame(frame({ sessionId: 's1', toolCallId: 'toolu_new' }))).toBe('persisted');
    expect(await store.recordFrames([frame({ sessionId: 's2', toolCallId: 'toolu_x' })])).toEqual(['persisted']);
    const rows = await store.listBySession('s1');
    expect(rows.filter((r) => r.source === 'live' && r.agent_execution_id !== 'unknown').map((r) => r.tool_call_id)).toEqual(['toolu_new']);
    expect(store.counters()).toMatchObject({ attempted: 7, persisted: 2, skipped_no_identity: 1, failed: 4 });
    expectCounterIdentity(store.counters());
  });

  it('an execution column added beside the surviving two-column key (no three-column key): every frame is failed + WARN', async () => {
    // The spec's mechanism exactly: the column exists, so only the conflict target can fail. So
    // do the columns added after the pre-amendment table (the add_subagent_columns step's), so a
    // column added to the DDL by docs/recipes.md needs no edit here.
    await db.exec(`ALTER TABLE task_session_subagents ADD COLUMN agent_execution_id TEXT NOT NULL DEFAULT 'unknown'`);
    for (const c of byDialect(dialect, { sqlite: sqliteAddColumns, postgres: postgresAddColumns }))
      if (!LEGACY_COLUMNS.includes(c.column)) await db.exec(c.script.sql);
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });
    await expectEveryWriteFails(store, logger);
    // PostgreSQL names the cause: no unique constraint matches the ON CONFLICT target.
    if (byDialect(dialect, { sqlite: false, postgres: true })) for (const line of logger.lines) expect(line.fields.code).toBe('42P10');
    else for (const line of logger.lines) expect(String(line.fields.error)).toMatch(/ON CONFLICT clause does not match/);
  });
});
