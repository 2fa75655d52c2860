// checkHealth()'s statements run as the store's named prepared statements (parsed once per
// pooled connection: issue 20's PostgreSQL health row), share the writer's statement mode, and
// fall back exactly like the upserts (test/host-named-statements.test.ts): a name already
// prepared on the server connection (42P05) or one it lost (26000) is retried unnamed, the
// report is the one an unnamed store gives, and from then on the whole store is unnamed.
// Staged on ONE direct connection (a pool of 1), what a transaction-mode pooler does by chance.
// PostgreSQL only: prepared statements are node-postgres's and the server's.
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import { createPostgresStore, type HealthReport } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { withPinnedSearchPath } from './helpers/pinned-search-path.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';

const HEALTH_STATEMENTS = [
  'count_collisions_since_capture',
  'count_excess_since_capture',
  'count_shortfall_since_capture',
  'max_observed_at_since_capture',
  'observe_json_helper',
  'probe_store_tables',
  'read_activation_keys',
  'set_local_search_path', // each anti-join's transaction pins it first (queries/postgres/set_local_search_path.sql)
  'set_local_time_settings', // then DateStyle and TimeZone (queries/postgres/set_local_time_settings.sql)
];

interface Prepared {
  name: string;
  statement: string;
}

/** A logger that keeps every line, INFO included. */
function fullLogger() {
  const lines: { level: string; code: unknown }[] = [];
  const at = (level: string) => (fields: object) => void lines.push({ level, code: (fields as { code?: unknown }).code });
  return { lines, warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') };
}

describe("checkHealth's named statements and their fallback [postgres]", () => {
  let db: TestDb;
  let pools: pg.Pool[];
  /** What a store that never names a statement reports on this database. */
  let expected: HealthReport;

  beforeEach(async () => {
    db = await openTestDb('postgres');
    pools = [];
    await insertSession(db, 's1', 'task-1');
    await insertSubagentMessage(db, { id: 'm-before', sessionId: 's1', toolCallId: 'backfilled', createdAt: '2026-01-01 00:00:00.000001' });
    expect((await createPostgresStore(onePool(), { clock: steppingClock() }).runMigrations()).ok).toBe(true);
    // After capture_since and never recorded: a shortfall of 1, so the check runs every statement.
    await insertSubagentMessage(db, { id: 'm-after', sessionId: 's1', toolCallId: 'lost', createdAt: '2099-01-01 00:00:00.000001' });
    const unnamedPool = onePool();
    expected = await createPostgresStore(unnamedPool, { namedStatements: false }).checkHealth();
    expect(expected).toMatchObject({ state: 'activated', shortfall: 1, excess: 0, collisions: 0, verdict: 'shortfall' });
    expect(await prepared(unnamedPool)).toEqual([]); // namedStatements: false prepares nothing
  });
  afterEach(async () => {
    for (const p of pools) await p.end();
    await db.close();
  });

  /** A pool of ONE connection: every statement, named or not, runs on the same server connection. */
  function onePool(): pg.Pool {
    const pool = poolFor({ connectionString: db.location, max: 1 });
    pools.push(pool);
    return pool;
  }
  /** A named store on its own one-connection pool, its every log line kept. */
  function storeOnOnePool() {
    const pool = onePool();
    const logger = fullLogger();
    return { pool, logger, store: createPostgresStore(pool, { clock: steppingClock(), logger }) };
  }
  const prepared = async (pool: pg.Pool): Promise<Prepared[]> =>
    (await pool.query<Prepared>('SELECT name, statement FROM pg_prepared_statements ORDER BY name')).rows;
  /**
   * After a switch nothing new is prepared, by the health check or by the writer (they share
   * the mode). What is there may stay: a statement staged by hand, or one of the check's
   * statements that was already queued, named, on the pool when the switch happened (a failed
   * pool.query destroys its connection, and the next one runs on a fresh connection).
   */
  async function expectUnnamedFromNowOn(store: ReturnType<typeof createPostgresStore>, pool: pg.Pool): Promise<void> {
    const left = await prepared(pool);
    expect(left.length).toBeLessThan(HEALTH_STATEMENTS.length);
    expect(await store.checkHealth()).toEqual(expected);
    expect(await store.recordFrame(frame({ toolCallId: 'after' }))).toBe('persisted');
    expect(await prepared(pool)).toEqual(left);
  }
  const queryOf = (name: string) => /^subagent_context\.([a-z_]+)\.[0-9a-f]{12}$/.exec(name)?.[1];

  it('on a direct connection the nine statements run named and report what an unnamed store reports', async () => {
    const pool = onePool();
    const store = createPostgresStore(pool, { clock: steppingClock() });
    expect(await store.checkHealth()).toEqual(expected);
    expect(await store.checkHealth()).toEqual(expected); // the second check binds what the first parsed
    expect((await prepared(pool)).map((p) => queryOf(p.name))).toEqual(HEALTH_STATEMENTS);
  });

  it('a name already prepared on the server connection (42P05): retried unnamed, the same report, the whole store unnamed from then on', async () => {
    const learner = onePool();
    await createPostgresStore(learner, { clock: steppingClock() }).checkHealth();
    const shortfall = (await prepared(learner)).find((p) => queryOf(p.name) === 'count_shortfall_since_capture')!;

    const { pool, logger, store } = storeOnOnePool();
    // Behind node-postgres's back, before the store's first statement; parsed as the package
    // parses it, with the search_path pinned (on 15 the JSON helper is found nowhere else).
    await withPinnedSearchPath(pool, (client) => client.query(`PREPARE "${shortfall.name}" AS ${shortfall.statement}`));
    expect(await store.checkHealth()).toEqual(expected);
    expect(logger.lines).toEqual([{ level: 'info', code: '42P05' }]);
    await expectUnnamedFromNowOn(store, pool);
  });

  it('a prepared name the server connection lost (26000): retried unnamed, the same report', async () => {
    const { pool, logger, store } = storeOnOnePool();
    expect(await store.checkHealth()).toEqual(expected); // named, parsed on the connection
    await pool.query('DEALLOCATE ALL'); // node-postgres still believes they are there
    expect(await store.checkHealth()).toEqual(expected);
    expect(logger.lines).toEqual([{ level: 'info', code: '26000' }]);
    await expectUnnamedFromNowOn(store, pool);
  });

  it('a real failure is not mistaken for a conflict: the check fails as a database error and the store stays named', async () => {
    const { pool, logger, store } = storeOnOnePool();
    await db.exec('ALTER TABLE task_session_subagents RENAME COLUMN observed_at TO observed_at_renamed'); // 42703 in the anti-joins
    await expect(store.checkHealth()).rejects.toMatchObject({ code: 'database_error' });
    await db.exec('ALTER TABLE task_session_subagents RENAME COLUMN observed_at_renamed TO observed_at');
    expect(await store.checkHealth()).toEqual(expected);
    expect(logger.lines.filter((l) => l.level === 'info')).toEqual([]);
    expect((await prepared(pool)).map((p) => queryOf(p.name))).toEqual(HEALTH_STATEMENTS);
  });
});
