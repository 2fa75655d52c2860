// Host keys that SQLite's chunked backfill could not hold (a review, 2026-12), each against the
// single statement's rows on the same store:
//   - a session whose id is a BLOB (a Go []byte written to the host's TEXT PRIMARY KEY stays one),
//     or text that is not well-formed UTF-8: the cursor (text, through JavaScript) could not hold
//     its key, next_backfill_sessions.sql returned the same session after it on every chunk, and
//     runMigrations() never returned. Such a session is never recordable (AC-21a): the walk skips it;
//   - a walk that reads the cursor's own session again: the runner fails the step, never loops;
//   - a winning message whose id is a BLOB, or (a host column without a declared type) an
//     integer: phase 1 staged text ids alone, so an older text-id message won its key.
// PostgreSQL's keys are text in a text column: the same store shapes there, with text keys, show
// its walk unaffected. Each run goes through the dialect's real migration database, its session
// reads counted: a walk past MAX_READS fails the step, so a regression fails here, never hangs.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreContext } from '../src/dialect.js';
import type { MigrationDatabase, MigrationPrimitives } from '../src/migrations/migration-database.js';
import { runMigrationPass } from '../src/migrations/migration-pass.js';
import { createPostgresMigrationDatabase } from '../src/postgres/migrations.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import { ACTIVATION_KEYS, type BackfillProgress, type MigrationOptions, type MigrationReport } from '../src/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { steppingClock } from './helpers/clock.js';
import { hostTimestamp } from './helpers/host-timestamp.js';
import { metaKeys } from './helpers/migration-db.js';
import { commitFromAnotherConnection, countJsonValid } from './helpers/other-connection.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertSession, subagentMetadata } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

/** Reads of the next sessions one run may make here; one more fails the step (a looping walk). */
const MAX_READS = 100;
const DAY = 86_400_000_000_000n;
const T0 = 1_785_000_000_000_000_000n;

/**
 * The dialect's migration database, its reads of the next sessions counted; `forget` makes each
 * read ignore the cursor, as a statement that returns a key the cursor cannot hold does.
 */
function countedMigrationDb(db: TestDb, reads: { n: number }, forget = false): MigrationDatabase {
  const inner = byDialect(db.dialect, { sqlite: () => createSqliteMigrationDatabase(db.sqlite!), postgres: () => createPostgresMigrationDatabase(db.pool!) })();
  const counted = (p: MigrationPrimitives): MigrationPrimitives => ({
    ...p,
    nextBackfillSessions: (after, limit) => {
      if (++reads.n > MAX_READS) throw new Error(`looped: ${reads.n} reads of the next sessions`);
      return p.nextBackfillSessions(forget ? '' : after, limit);
    },
  });
  return { ...inner, locked: (body) => inner.locked((p) => body(counted(p))), unlocked: (body) => inner.unlocked((p) => body(counted(p))) };
}

async function migrate(db: TestDb, reads: { n: number }, options: MigrationOptions, forget = false): Promise<MigrationReport> {
  const ctx: StoreContext = { dialect: db.dialect, clock: steppingClock(), logger: recordingLogger() };
  return runMigrationPass(countedMigrationDb(db, reads, forget), ctx, options);
}

const meta = (toolCallId: string, description: string) => subagentMetadata({ toolCallId, toolStatus: 'completed', subagent: { description } });

/** A completed subagent message in the session whose task is `taskId` (its key may be a BLOB), `id` as given (a Buffer is a BLOB). */
async function message(db: TestDb, id: unknown, taskId: string, toolCallId: string, description: string, atNs: bigint): Promise<void> {
  await db.query(
    'INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) SELECT $1, s.id, s.task_id, $2, $3 FROM task_sessions AS s WHERE s.task_id = $4',
    [id, meta(toolCallId, description), hostTimestamp(db, atNs), taskId],
  );
}

describeBothDialects('runMigrations: host keys the backfill’s cursor and staging table could not hold', (dialect) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('sessions keyed by a BLOB or by text that is not UTF-8, two of them past the last text key: the walk ends, with the single statement’s rows', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    for (const id of ['a', 'b', '~']) await insertSession(t, id);
    // SQLite: 'z' 0xFF 0x80 is not UTF-8 (read back as 'z\uFFFD\uFFFD', which sorts below it), and
    // BLOBs sort after all text. PostgreSQL's text column holds neither: the same shape, text keys.
    const odd = byDialect(dialect, { sqlite: ["CAST(x'7aff80' AS TEXT)", "x'6262'", "x'6363'"], postgres: ["'z\uFFFD'", "'bb'", "'cc'"] });
    const at = hostTimestamp(t, T0);
    for (const [i, key] of odd.entries())
      await t.exec(`INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES (${key}, 'task-odd-${i}', '${at}', '${at}')`);
    for (const [i, id] of ['a', 'b', '~'].entries()) await message(t, `m-${i}`, `task-${id}`, 'toolu_1', id, T0 + BigInt(i) * DAY);
    for (const i of odd.keys()) await message(t, `odd-${i}`, `task-odd-${i}`, 'toolu_1', `odd-${i}`, T0 + BigInt(i) * DAY);
    const single = await singleStatementRows(t);
    // No odd session is recordable on SQLite (AC-21a); on PostgreSQL each is ordinary text.
    expect(single.rows.map((r) => r.description).sort()).toEqual(
      byDialect(dialect, { sqlite: ['a', 'b', '~'], postgres: ['a', 'b', 'odd-0', 'odd-1', 'odd-2', '~'] }),
    );

    const reads = { n: 0 };
    const seen: BackfillProgress[] = [];
    const report = await migrate(t, reads, {
      backfillChunk: { maxSessions: 1, pauseMs: 0, walk: 'sessions' },
      onBackfillProgress: (p) => void seen.push(p),
    });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(single.rows);
    const keys = await metaKeys(t);
    expect(keys[ACTIVATION_KEYS.backfillThrough]).toBe(single.through);
    expect(Object.keys(keys).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort()); // progress keys gone
    // The walk and its progress count the same sessions: the ones the cursor can hold.
    const last = seen[seen.length - 1];
    const walked = byDialect(dialect, { sqlite: 3, postgres: 6 });
    expect([last.done, last.sessions, last.sessionsToWalk]).toEqual([true, walked, walked]);
    expect(reads.n).toBeLessThanOrEqual(2 * (walked + 1)); // each chunk read once, and once ahead on SQLite
  });

  it('a walk whose read returns the cursor’s own session again fails the step, clearly, and never loops; the next run completes', async () => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    for (const [i, id] of ['s1', 's2', 's3'].entries()) {
      await insertSession(t, id);
      await message(t, `m-${id}`, `task-${id}`, 'toolu_1', id, T0 + BigInt(i) * DAY);
    }
    const single = await singleStatementRows(t);
    const options: MigrationOptions = { backfillChunk: { maxSessions: 1, pauseMs: 0, walk: 'sessions' } };
    const reads = { n: 0 };
    const stuck = await migrate(t, reads, options, true);
    const step = stuck.steps.find((s) => s.name === 'backfill_subagent_contexts');
    expect(step?.status, JSON.stringify(stuck.steps)).toBe('failed');
    expect(step?.error).toMatch(/session walk cannot advance: the session key "s1" came back after the cursor/);
    expect(reads.n).toBeLessThanOrEqual(4);
    expect((await metaKeys(t))[ACTIVATION_KEYS.captureSince]).toBeUndefined(); // no key after a failed chunk

    const report = await migrate(t, { n: 0 }, options);
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(single.rows);
  });

  // SQLite both ways: ranking from the staged columns, and (after a commit elsewhere) each candidate read again.
  const ways = dialect === 'sqlite' ? (['staged columns', 'read again'] as const) : (['sessions'] as const);
  it.each(ways)('a message whose id is a BLOB competes by AC-21b as in the single statement (%s)', async (way) => {
    db = await openTestDb(dialect, 'package');
    const t = db;
    await insertSession(t, 'a');
    // On PostgreSQL the same shape with text ids: the ids a BLOB's bytes spell.
    const bytes = (s: string) => byDialect(dialect, { sqlite: Buffer.from(s), postgres: s });
    await message(t, 'm1', 'task-a', 'toolu_newer', 'older, text id', T0);
    await message(t, bytes('m0'), 'task-a', 'toolu_newer', 'newer, BLOB id', T0 + DAY);
    // Equal instants: the greatest id wins; a BLOB is greater than any text on SQLite.
    await message(t, 'zz', 'task-a', 'toolu_tie', 'text id', T0);
    await message(t, bytes('a'), 'task-a', 'toolu_tie', 'BLOB id', T0);
    const single = await singleStatementRows(t);
    expect(single.rows.map((r) => [r.tool_call_id, r.description])).toEqual([
      ['toolu_newer', 'newer, BLOB id'],
      ['toolu_tie', byDialect(dialect, { sqlite: 'BLOB id', postgres: 'text id' })],
    ]);
    const jsonValid = dialect === 'sqlite' ? countJsonValid(t.sqlite!) : { calls: 0 };
    let atStageEnd = 0;
    const report = await migrate(
      t,
      { n: 0 },
      {
        backfillChunk: { maxSessions: 1, pauseMs: 0, walk: 'sessions' },
        onBackfillProgress: (p) => {
          if (p.phase !== 'stage') return;
          atStageEnd = jsonValid.calls;
          if (way === 'read again') commitFromAnotherConnection(t.location);
        },
      },
    );
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(t)).toEqual(single.rows);
    if (way === 'staged columns') expect(jsonValid.calls - atStageEnd).toBe(0);
    if (way === 'read again') expect(jsonValid.calls - atStageEnd).toBeGreaterThan(0);
  });
});

describe('runMigrations: SQLite keys the dialect alone can hold [sqlite]', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('a session key the recordable-id rule admits but the cursor cannot hold (text ending in a lone 0xFF) fails the step clearly, never loops', async () => {
    db = await openTestDb('sqlite', 'package');
    const t = db;
    await insertSession(t, 'a');
    await t.exec(
      `INSERT INTO task_sessions (id, task_id, created_at, updated_at) SELECT CAST(x'7aff' AS TEXT), 'task-z', created_at, updated_at FROM task_sessions`,
    );
    const reads = { n: 0 };
    const report = await migrate(t, reads, { backfillChunk: { maxSessions: 1, pauseMs: 0 } });
    const step = report.steps.find((s) => s.name === 'backfill_subagent_contexts');
    expect(step?.status, JSON.stringify(report.steps)).toBe('failed');
    expect(step?.error).toMatch(/session walk cannot advance: the session key "z\uFFFD" came back/);
    expect(reads.n).toBeLessThanOrEqual(8);
  });

  it.each(['staged columns', 'read again'] as const)(
    'integer message ids (a host column without a declared type) rank as integers, as in the single statement (%s)',
    async (way) => {
      db = await openTestDb('sqlite');
      const t = db;
      const host = readFileSync('schema/host/sqlite/001_host_tables.sql', 'utf8');
      const typeless = host.replace('  id              TEXT PRIMARY KEY,\n  task_session_id', '  id              PRIMARY KEY,\n  task_session_id');
      expect(typeless).not.toBe(host);
      await t.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions;');
      await t.exec(typeless);
      await t.store().runMigrations({ backfill: 'defer' });
      await insertSession(t, 'a');
      // Equal instants: 10 > 9 as integers ('9' > '10' as text); text is greater than any integer.
      await message(t, 9n, 'task-a', 'toolu_int', 'nine', T0);
      await message(t, 10n, 'task-a', 'toolu_int', 'ten', T0);
      await message(t, 11n, 'task-a', 'toolu_mixed', 'integer id', T0);
      await message(t, '1', 'task-a', 'toolu_mixed', 'text id', T0);
      expect((await t.query<{ t: string }>('SELECT DISTINCT typeof(id) AS t FROM task_session_messages ORDER BY 1')).map((r) => r.t)).toEqual([
        'integer',
        'text',
      ]);
      const single = await singleStatementRows(t);
      expect(single.rows.map((r) => [r.tool_call_id, r.description])).toEqual([
        ['toolu_int', 'ten'],
        ['toolu_mixed', 'text id'],
      ]);
      const jsonValid = countJsonValid(t.sqlite!);
      let atStageEnd = 0;
      const report = await migrate(
        t,
        { n: 0 },
        {
          backfillChunk: { pauseMs: 0 },
          onBackfillProgress: (p) => {
            if (p.phase !== 'stage') return;
            atStageEnd = jsonValid.calls;
            if (way === 'read again') commitFromAnotherConnection(t.location);
          },
        },
      );
      expect(report.ok, JSON.stringify(report.steps)).toBe(true);
      expect(await backfilledRows(t)).toEqual(single.rows);
      expect(jsonValid.calls - atStageEnd > 0).toBe(way === 'read again');
    },
  );
});
