// The activation keys (AC-24…AC-24f, AC-33c): written only by work that succeeded, both
// backfill keys or neither, a partial pair repaired, present keys never rewritten, the
// high-water mark from the source predicate, capture_since sampled after the INSERT.
import { execFileSync } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { ACTIVATION_KEYS } from '../src/index.js';
import { formatKeyInstant, parseInstant } from '../src/instant.js';
import { steppingClock } from './helpers/clock.js';
import { metaKeys, seedPreAmendmentRows, stepStatuses } from './helpers/migration-db.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { createFailingTrigger, createLateMessageTrigger, dropFailingTrigger } from './helpers/injected-triggers.js';
import { setKeys } from './helpers/activation-keys.js';

const { captureSince, backfillThrough, executionSince } = ACTIVATION_KEYS;
const NINE_DIGITS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
/** The pre-amendment build's second-precision form (time.RFC3339 / rfc3339Timestamp). */
const LEGACY_KEY = '2026-07-30T01:39:37Z';

describeBothDialects('runMigrations: activation keys', (dialect) => {
  let db: TestDb;
  afterEach(async () => db?.close());

  /**
   * Two sessions, three qualifying messages and two newer non-qualifying ones (a text message
   * and a subagent message with an empty task id): the high-water mark is the newest QUALIFYING
   * created_at, 2026-08-01 10:00:02.5.
   */
  const seedMessages = async () => {
    await insertSession(db, 's1');
    await insertSession(db, 's2');
    const sub = (toolCallId: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { status: 'completed' } });
    await insertMessage(db, { id: 'm1', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00.000001'), metadata: sub('toolu_1') });
    await insertMessage(db, { id: 'm2', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:02.5'), metadata: sub('toolu_2') });
    await insertMessage(db, { id: 'm3', sessionId: 's2', createdAt: hostTimestamp(dialect, '2026-08-01 09:59:59'), metadata: sub('toolu_1') });
    await insertMessage(db, { id: 'm4', sessionId: 's2', createdAt: hostTimestamp(dialect, '2026-08-01 11:00:00'), metadata: '{"kind":"text"}' });
    await insertMessage(db, { id: 'm5', sessionId: 's2', taskId: '', createdAt: hostTimestamp(dialect, '2026-08-01 12:00:00'), metadata: sub('toolu_9') });
  };
  const HIGH_WATER = '2026-08-01T10:00:02.500000000Z';
  const backfilledCount = async () =>
    Number((await db.query<{ n: number | string }>(`SELECT count(*) AS n FROM task_session_subagents WHERE source = 'backfill'`))[0].n);

  it('AC-33c: on a pre-amendment table whose earlier backfill failed, the shape change goes first and the backfill succeeds, twice in a row', async () => {
    db = await openTestDb(dialect, 'legacy');
    await seedMessages();
    await seedPreAmendmentRows(db); // one of them is itself source = 'backfill'
    const store = db.store({ clock: steppingClock() });
    for (const run of [1, 2]) {
      const report = await store.runMigrations();
      expect(report.ok).toBe(true);
      const names = report.steps.map((s) => s.name);
      expect(names.indexOf('upgrade_pre_amendment_table')).toBeLessThan(names.indexOf('backfill_subagent_contexts'));
      expect(names.indexOf('record_execution_since')).toBeLessThan(names.indexOf('backfill_subagent_contexts'));
      expect(stepStatuses(report).backfill_subagent_contexts).toBe(run === 1 ? 'applied' : 'skipped');
      const keys = await metaKeys(db);
      expect(keys[backfillThrough]).toBe(HIGH_WATER);
      expect(keys[captureSince]).toMatch(NINE_DIGITS);
      expect(await backfilledCount()).toBe(1 + 3); // the legacy 'backfill' row + three messages
    }
  });

  it('AC-24a: a failing backfill writes neither key, is logged WARN with its name, and is retried by the next run', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    await createFailingTrigger(db, 'task_session_subagents', `NEW.source = 'backfill'`);
    const logger = recordingLogger();
    const store = db.store({ clock: steppingClock(), logger });

    const failed = await store.runMigrations();
    expect(failed.ok).toBe(false);
    expect(stepStatuses(failed)).toMatchObject({ record_execution_since: 'applied', backfill_subagent_contexts: 'failed' });
    expect(failed.steps.find((s) => s.name === 'backfill_subagent_contexts')?.error).toMatch(/injected/);
    expect(logger.lines.map((w) => w.fields.step)).toEqual(['backfill_subagent_contexts']);
    const keys = await metaKeys(db);
    expect(keys[captureSince]).toBeUndefined();
    expect(keys[backfillThrough]).toBeUndefined();
    expect(keys[executionSince]).toMatch(NINE_DIGITS); // earned by its own step
    expect(await backfilledCount()).toBe(0);

    await dropFailingTrigger(db, 'task_session_subagents');
    const retried = await store.runMigrations();
    expect(retried.ok).toBe(true);
    expect(stepStatuses(retried).backfill_subagent_contexts).toBe('applied');
    expect((await metaKeys(db))[backfillThrough]).toBe(HIGH_WATER);
    expect((await metaKeys(db))[captureSince]).toMatch(NINE_DIGITS);
    expect(await backfilledCount()).toBe(3);
  });

  for (const failingKey of [captureSince, backfillThrough]) {
    it(`AC-24d: when the ${failingKey === captureSince ? 'second' : 'first'} key write fails, neither key exists and no row was inserted`, async () => {
      db = await openTestDb(dialect, 'package');
      await seedMessages();
      await createFailingTrigger(db, 'kandev_meta', `NEW.key = '${failingKey}'`);
      const logger = recordingLogger();
      const store = db.store({ clock: steppingClock(), logger });
      const report = await store.runMigrations();
      expect(stepStatuses(report).backfill_subagent_contexts).toBe('failed');
      expect(logger.lines.map((w) => w.fields.step)).toEqual(['backfill_subagent_contexts']);
      const keys = await metaKeys(db);
      expect([keys[captureSince], keys[backfillThrough]]).toEqual([undefined, undefined]);
      expect(await backfilledCount()).toBe(0);

      await dropFailingTrigger(db, 'kandev_meta');
      expect((await store.runMigrations()).ok).toBe(true);
      expect((await metaKeys(db))[backfillThrough]).toBe(HIGH_WATER);
      expect(await backfilledCount()).toBe(3);
    });
  }

  it('AC-24d repair: capture_since present without backfill_through — the missing key appears with the true high-water mark, the present one byte-identical', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    await setKeys(db, { [captureSince]: LEGACY_KEY });
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(stepStatuses(report).backfill_subagent_contexts).toBe('applied');
    const keys = await metaKeys(db);
    expect(keys[captureSince]).toBe(LEGACY_KEY);
    expect(keys[backfillThrough]).toBe(HIGH_WATER);
    expect(await backfilledCount()).toBe(3);
  });

  it('AC-24d repair: backfill_through present without capture_since — capture_since appears, backfill_through byte-identical', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    await setKeys(db, { [backfillThrough]: LEGACY_KEY });
    const clock = steppingClock();
    const report = await db.store({ clock }).runMigrations();
    expect(stepStatuses(report).backfill_subagent_contexts).toBe('applied');
    const keys = await metaKeys(db);
    expect(keys[backfillThrough]).toBe(LEGACY_KEY);
    expect(keys[captureSince]).toBe(formatKeyInstant(clock.now())); // the last sample this run took
  });

  it('AC-24 point 1: backfill_through is unchanged and non-empty when a retry inserts nothing', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    const store = db.store({ clock: steppingClock() });
    expect((await store.runMigrations()).ok).toBe(true);
    const first = await metaKeys(db);
    expect(first[backfillThrough]).toBe(HIGH_WATER);
    const rowsBefore = await db.query(`SELECT id FROM task_session_subagents ORDER BY id`);
    await db.query(`DELETE FROM kandev_meta WHERE key = $1`, [captureSince]);

    const retry = await store.runMigrations();
    expect(stepStatuses(retry).backfill_subagent_contexts).toBe('applied');
    const second = await metaKeys(db);
    expect(second[backfillThrough]).toBe(first[backfillThrough]);
    expect(second[captureSince]).toMatch(NINE_DIGITS);
    expect(second[captureSince] > first[captureSince]).toBe(true);
    expect(await db.query(`SELECT id FROM task_session_subagents ORDER BY id`)).toEqual(rowsBefore); // the INSERT was a no-op
  });

  it('AC-24 point 5: second-precision keys the pre-amendment build wrote stay byte-identical across two runs', async () => {
    db = await openTestDb(dialect, 'legacy');
    await seedMessages();
    await db.exec(`CREATE TABLE kandev_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL DEFAULT '')`); // as the host has it
    await setKeys(db, { [captureSince]: LEGACY_KEY, [backfillThrough]: '2026-07-29T10:00:00Z' });
    const store = db.store({ clock: steppingClock() });
    for (let run = 0; run < 2; run++) {
      const report = await store.runMigrations();
      expect(report.ok).toBe(true);
      expect(stepStatuses(report).backfill_subagent_contexts).toBe('skipped'); // both present: the guard holds
      const keys = await metaKeys(db);
      expect(keys[captureSince]).toBe(LEGACY_KEY);
      expect(keys[backfillThrough]).toBe('2026-07-29T10:00:00Z');
      expect(keys[executionSince]).toMatch(NINE_DIGITS);
    }
  });

  it("AC-24f: with no qualifying message, backfill_through is the '' sentinel, which is not an instant", async () => {
    db = await openTestDb(dialect, 'package');
    await insertSession(db, 's1');
    await insertMessage(db, { id: 'm1', sessionId: 's1', createdAt: hostTimestamp(dialect, '2026-08-01 10:00:00'), metadata: '{"kind":"text"}' });
    await insertMessage(db, {
      id: 'm2',
      sessionId: 's1',
      taskId: '',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:01'),
      metadata: subagentMetadata({ toolCallId: 't', subagent: {} }),
    });
    await insertMessage(db, {
      id: 'm3',
      sessionId: 's1',
      createdAt: hostTimestamp(dialect, '2026-08-01 10:00:02'),
      metadata: '{"normalized":{"kind":"subagent_task"',
    });
    const report = await db.store({ clock: steppingClock() }).runMigrations();
    expect(stepStatuses(report).backfill_subagent_contexts).toBe('applied');
    const keys = await metaKeys(db);
    expect(keys[backfillThrough]).toBe('');
    expect(parseInstant(keys[backfillThrough])).toBeNull();
    expect(keys[captureSince]).toMatch(NINE_DIGITS);
    expect(await backfilledCount()).toBe(0);
  });

  it("AC-24 point 3, AC-24e: every key this build writes keeps the clock's nine fraction digits", async () => {
    db = await openTestDb(dialect);
    await seedMessages();
    const samples: bigint[] = [];
    const base = steppingClock(1_785_000_000_123_456_789n, 1_001n);
    const clock = () => {
      const v = base();
      samples.push(v);
      return v;
    };
    expect((await db.store({ clock }).runMigrations()).ok).toBe(true);
    const keys = await metaKeys(db);
    for (const key of [captureSince, executionSince]) {
      expect(keys[key]).toMatch(NINE_DIGITS);
      expect(keys[key]).not.toMatch(/:\d{2}Z$/); // never the second-precision RFC3339 form
      // Exactly a value the clock returned, sub-microsecond digits included (the clock's
      // samples all end in non-zero nanoseconds), so nothing was truncated or rounded.
      expect(samples.map(formatKeyInstant)).toContain(keys[key]);
      expect(keys[key].slice(-4, -1)).not.toBe('000');
    }
    expect(keys[backfillThrough]).toBe(HIGH_WATER);
  });

  it('AC-24 point 4: capture_since is sampled after the INSERT completed, never at transaction start', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    const insertsSeen = await watchBackfillInserts(db);
    const calls: { ns: bigint; inserted: number }[] = [];
    const base = steppingClock();
    const clock = () => {
      const ns = base();
      calls.push({ ns, inserted: insertsSeen() });
      return ns;
    };
    expect((await db.store({ clock }).runMigrations()).ok).toBe(true);
    const keys = await metaKeys(db);
    const sample = calls.find((c) => formatKeyInstant(c.ns) === keys[captureSince]);
    expect(sample?.inserted).toBe(3); // every backfilled row was already in when the clock was read
    const executionSample = calls.find((c) => formatKeyInstant(c.ns) === keys[executionSince]);
    expect(executionSample?.inserted).toBe(0); // the observation really does discriminate
  });

  it('AC-24d evaluation order: backfill_through never names a message the INSERT did not cover', async () => {
    db = await openTestDb(dialect, 'package');
    await seedMessages();
    // While the backfill inserts its first row, a newer qualifying message appears in the
    // same transaction. A MAX taken after the INSERT would publish it; one taken before cannot.
    await createLateMessageTrigger(db, hostTimestamp(dialect, '2026-08-02 00:00:00'));
    expect((await db.store({ clock: steppingClock() }).runMigrations()).ok).toBe(true);
    expect(await db.query(`SELECT id FROM task_session_messages WHERE id = 'late'`)).toHaveLength(1); // the trigger did fire
    expect((await metaKeys(db))[backfillThrough]).toBe(HIGH_WATER);
    expect(await db.query(`SELECT tool_call_id FROM task_session_subagents WHERE tool_call_id = 'toolu_late'`)).toEqual([]);
  });
});

/**
 * Counts backfilled rows as the database inserts them, readable synchronously from the
 * clock: SQLite calls a JavaScript function from an AFTER INSERT trigger on the same
 * connection; PostgreSQL bumps a sequence from a statement-level AFTER INSERT trigger
 * (sequences are not transactional, so another session sees it at once) and the clock reads
 * it from a child process.
 */
async function watchBackfillInserts(db: TestDb): Promise<() => number> {
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    let inserted = 0;
    db.sqlite!.function('note_backfill_insert', () => ++inserted);
    await db.exec(`CREATE TRIGGER note_insert AFTER INSERT ON task_session_subagents WHEN NEW.source = 'backfill'
                   BEGIN SELECT note_backfill_insert(); END`);
    return () => inserted;
  }
  await db.exec(`
    CREATE SEQUENCE backfill_rows_inserted MINVALUE 0 START 0;
    CREATE FUNCTION note_backfill_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      PERFORM setval('backfill_rows_inserted', (SELECT count(*) FROM new_rows WHERE source = 'backfill'));
      RETURN NULL;
    END $f$;
    CREATE TRIGGER note_insert AFTER INSERT ON task_session_subagents REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION note_backfill_insert();`);
  const script = `const pg = require('pg'); const c = new pg.Client(process.argv[1]);
    c.on('error', () => {}); // a plain child process cannot use scripts/lib/postgres-database.ts's clientFor
    c.connect().then(() => c.query('SELECT last_value FROM backfill_rows_inserted'))
     .then((r) => { process.stdout.write(String(r.rows[0].last_value)); return c.end(); })`;
  return () => Number(execFileSync(process.execPath, ['-e', script, db.location], { cwd: process.cwd(), encoding: 'utf8' }));
}
