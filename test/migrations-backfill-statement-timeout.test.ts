// Issue 32 item 3 (PostgreSQL only: SQLite has no statement_timeout): a host role with a small
// statement_timeout completes the backfill on a store where the single statement exceeds it.
// The chunks are sized to a fifth of the role's timeout (src/postgres/migrations.ts), so each
// statement fits; the package never turns the timeout off (the role's setting is what every
// connection runs under, and it is unchanged afterwards).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import { WHOLE_TABLE_MARK } from '../scripts/bench/single-statement.js';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore, type BackfillProgress } from '../src/index.js';
import { FIRST_WINDOW_MESSAGES } from '../src/migrations/backfill-windows.js';
import { backfilledToolCalls, seedBusyHostStore, survivingQualifyingToolCalls } from './helpers/busy-host-store.js';
import { metaKeys } from './helpers/migration-db.js';
import { withPinnedSearchPath } from './helpers/pinned-search-path.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

const TIMEOUT_MS = 250; // the single statement over 400k messages takes seconds; each chunk aims at 50 ms

describe('runMigrations: the backfill under a role with a small statement_timeout (issue 32) [postgres]', () => {
  let db: TestDb;
  let admin: pg.Pool;
  let pool: pg.Pool;
  const role = `sc_timeout_${process.pid}_${Date.now().toString(36)}`;

  beforeAll(async () => {
    admin = poolFor({ connectionString: inject('pgUrl'), max: 1 });
    await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER PASSWORD 'pw'`);
    await admin.query(`ALTER ROLE ${role} SET statement_timeout = ${TIMEOUT_MS}`);
    db = await openTestDb('postgres', 'package');
    await seedBusyHostStore(db, { sessions: 4_000, messages: 400_000 });
    const url = new URL(db.location);
    url.username = role;
    url.password = 'pw';
    pool = poolFor({ connectionString: url.toString(), max: 3 });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await db?.close();
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
  });

  it('the single statement is cancelled under the role; the chunked backfill completes with every row', async () => {
    const [{ statement_timeout }] = (await pool.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows;
    expect(statement_timeout).toBe(`${TIMEOUT_MS}ms`);

    // The single statement over every session, under the role: cancelled (57014).
    const sessions = (await db.query<{ id: string }>('SELECT id FROM task_sessions ORDER BY id')).map((s) => s.id);
    const single = withPinnedSearchPath(pool, (c) => postgresQueries.backfillSubagentContexts.run({ sessionIds: sessions }, c));
    await expect(single).rejects.toMatchObject({ code: '57014' });
    expect(await backfilledToolCalls(db)).toEqual([]);

    const chunks: number[] = [];
    const report = await createPostgresStore(pool).runMigrations({ onBackfillProgress: (p) => chunks.push(p.sessions) });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(chunks.length).toBeGreaterThan(2); // chunked: no statement held the whole store
    expect(await backfilledToolCalls(db)).toEqual(await survivingQualifyingToolCalls(db));
    expect(Object.keys(await metaKeys(db)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
    const [after] = (await pool.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows;
    expect(after.statement_timeout).toBe(`${TIMEOUT_MS}ms`);
  }, 180_000);

  it('the mark is read in windows: subagent messages older than 400k others, under a 100 ms limit', async () => {
    // Only the oldest ten minutes keep their subagent messages: the newest qualifying message
    // lies below nearly every other. Read in one statement, the mark walks them all and the
    // role's limit cancels it on every boot (an adversarial review); read in windows, it is found.
    await db.exec(`UPDATE task_session_messages SET metadata = replace(metadata, 'subagent_task', 'subagent_tusk')
                    WHERE created_at > timestamp '2026-01-01 00:10:00' AND metadata LIKE '%subagent_task%'`);
    await db.exec('DELETE FROM task_session_subagents; DELETE FROM kandev_meta;');
    const [expected] = await withPinnedSearchPath(db.pool!, (c) => postgresQueries.readBackfillThrough.run(WHOLE_TABLE_MARK, c));
    expect(expected.backfill_through).toBe('2026-01-01T00:09:54.000000000Z'); // i = 594, the last multiple of 33 within ten minutes
    const tight = `${role}_mark`;
    await admin.query(`CREATE ROLE ${tight} LOGIN SUPERUSER PASSWORD 'pw'`);
    await admin.query(`ALTER ROLE ${tight} SET statement_timeout = 100`);
    const url = new URL(db.location);
    url.username = tight;
    url.password = 'pw';
    const tightPool = poolFor({ connectionString: url.toString(), max: 3 });
    try {
      const single = withPinnedSearchPath(tightPool, (c) => postgresQueries.readBackfillThrough.run(WHOLE_TABLE_MARK, c));
      await expect(single).rejects.toMatchObject({ code: '57014' });
      const report = await createPostgresStore(tightPool).runMigrations();
      expect(report.ok, JSON.stringify(report.steps.filter((step) => step.status === 'failed'))).toBe(true);
      expect((await metaKeys(db))[ACTIVATION_KEYS.backfillThrough]).toBe(expected.backfill_through);
      expect(await backfilledToolCalls(db)).toEqual(await survivingQualifyingToolCalls(db));
    } finally {
      await tightPool.end();
      await admin.query(`DROP ROLE IF EXISTS ${tight}`);
    }
  }, 180_000);

  it('a first chunk the timeout cancels is retried smaller, in the same run (statement_timeout, and transaction_timeout on 17+)', async () => {
    // 20 sessions of 2,000 messages (61 subagents each) and a 1 s limit. A trigger the test adds
    // makes the first chunk writing more than 100 rows sleep 2 s, whatever the machine's speed
    // (a sequence counts, and a cancelled transaction does not undo it): the first chunk (16
    // sessions, or the window of the newest 10,000 messages) overruns the limit and is cancelled
    // (57014; transaction_timeout's 25P04 also ends the connection), and the run goes on with
    // smaller ones. The pacing reads both limits. Both of PostgreSQL's walks.
    const fat = await openTestDb('postgres', 'package');
    try {
      await seedBusyHostStore(fat, { sessions: 20, messages: 40_000, descriptionChars: 100, contiguous: true });
      await fat.exec(`CREATE SEQUENCE wide_chunks;
                      CREATE FUNCTION slow_wide_chunk() RETURNS trigger LANGUAGE plpgsql AS $f$
                        BEGIN
                          IF (SELECT count(*) FROM inserted) > 100 AND nextval('wide_chunks') = 1 THEN PERFORM pg_sleep(2); END IF;
                          RETURN NULL;
                        END $f$;
                      CREATE TRIGGER slow_wide_chunk AFTER INSERT ON task_session_subagents
                        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION slow_wide_chunk();`);
      const [{ version, hasTransactionTimeout }] = await fat.query<{ version: number; hasTransactionTimeout: boolean }>(
        `SELECT current_setting('server_version_num')::int AS version, EXISTS (SELECT FROM pg_settings WHERE name = 'transaction_timeout') AS "hasTransactionTimeout"`,
      );
      expect(hasTransactionTimeout).toBe(version >= 170000); // PostgreSQL 17 added it
      const settings = hasTransactionTimeout ? ['statement_timeout', 'transaction_timeout'] : ['statement_timeout'];
      for (const [setting, walk] of settings.flatMap((t) => [[t, 'sessions'] as const, [t, 'windows'] as const])) {
        const fatRole = `${role}_${setting.split('_')[0]}_${walk}`;
        await fat.exec('DELETE FROM task_session_subagents; DELETE FROM kandev_meta; ALTER SEQUENCE wide_chunks RESTART;');
        await admin.query(`CREATE ROLE ${fatRole} LOGIN SUPERUSER PASSWORD 'pw'`);
        await admin.query(`ALTER ROLE ${fatRole} SET ${setting} = 1000`);
        const url = new URL(fat.location);
        url.username = fatRole;
        url.password = 'pw';
        const fatPool = poolFor({ connectionString: url.toString(), max: 3 });
        try {
          const progress: BackfillProgress[] = [];
          const report = await createPostgresStore(fatPool).runMigrations({ backfillChunk: { walk }, onBackfillProgress: (p) => progress.push(p) });
          expect(report.ok, `${setting}: ${JSON.stringify(report.steps.filter((step) => step.status === 'failed'))}`).toBe(true);
          // The first committed chunk is a retried, smaller one: fewer than 16 sessions, or (the
          // window walk) fewer than the first window's 10,000 messages.
          expect(progress[0].phase, setting).toBe(walk);
          if (walk === 'sessions') expect(progress[0].sessions, setting).toBeLessThan(16);
          else expect(progress[0].messagesScanned, setting).toBeLessThan(FIRST_WINDOW_MESSAGES);
          expect(await backfilledToolCalls(fat)).toEqual(await survivingQualifyingToolCalls(fat));
        } finally {
          await fatPool.end();
          await admin.query(`DROP ROLE IF EXISTS ${fatRole}`);
        }
      }
    } finally {
      await fat.close();
    }
  }, 240_000);
});
