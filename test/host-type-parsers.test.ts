// DESIGN §8 "Type parsers": no result depends on the host's global `pg.types` parsers (or on a
// pool's own `types`). A host that maps booleans, integers, numerics, JSON and timestamps its
// own way gets, from the same frames and host rows, exactly the rows, health report, migration
// reports (the shape probe reads booleans and int4 counts) and counters a default host gets.
// PostgreSQL only: the setting is node-postgres's.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolFor } from '../scripts/lib/postgres-database.js';
import type { MigrationReport, SubagentContextRow } from '../src/index.js';
import { createPostgresStore } from '../src/index.js';
import { steppingClock } from './helpers/clock.js';
import { EXEC_A, EXEC_B, frame } from './helpers/live-db.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';
import { recordingLogger } from './helpers/recording-logger.js';
import { insertMessage, insertSession, subagentMetadata } from './helpers/seed-host-rows.js';

type Parser = (value: string) => unknown;

/** What a host might have set globally: every value changes shape, so any dependence shows. */
const HOST_PARSERS: Record<number, Parser> = {
  16: (v) => (v === 't' ? 'yes' : 'no'), // bool
  21: (v) => `int2:${v}`,
  23: (v) => `int4:${v}`,
  20: (v) => Number(v), // int8 as a (lossy) number
  700: (v) => `float4:${v}`,
  701: (v) => `float8:${v}`,
  1700: (v) => Number(v), // numeric
  114: (v) => ({ json: v }),
  3802: (v) => ({ jsonb: v }),
  1082: (v) => `date:${v}`,
  1114: (v) => new Date(`${v}Z`), // timestamp
  1184: (v) => new Date(v), // timestamptz
};

const BIG = 2n ** 60n + 1n; // beyond 2^53: a number parser would lose it

/** The same host history, frames and calls; everything the store returns, minus random ids and timings. */
async function transcript(db: TestDb, pool: pg.Pool) {
  await insertSession(db, 's1', 'task-1');
  await insertSession(db, 's2', 'task-2');
  await insertMessage(db, {
    id: 'm1',
    sessionId: 's1',
    taskId: 'task-1',
    turnId: 'turn-0',
    metadata: subagentMetadata({ toolCallId: 'history', toolStatus: 'completed', subagent: { subagent_type: 'reviewer', total_tokens: 12, is_async: true } }),
    createdAt: '2026-01-01 00:00:00.000001',
  });
  await insertMessage(db, { id: 'm2', sessionId: 's1', taskId: 'task-1', turnId: 'turn-0', metadata: null, createdAt: '2026-01-01 00:00:01' });
  const logger = recordingLogger();
  const store = createPostgresStore(pool, { clock: steppingClock(), logger });
  const report = (r: MigrationReport) => ({ ok: r.ok, steps: r.steps.map(({ name, status, error }) => ({ name, status, error })) });
  const rows = (list: SubagentContextRow[]) => list.map(({ id: _id, ...rest }) => rest);

  const firstMigration = report(await store.runMigrations());
  const outcomes = [
    await store.recordFrame(
      frame({ toolCallId: 'big', toolStatus: 'completed', payload: { total_tokens: BIG, tool_use_count: 0, duration_ms: 2n ** 53n, is_async: true } }),
    ),
    await store.recordFrame(frame({ toolCallId: 'plain', executionId: EXEC_B, payload: { subagent_type: 'explorer', model: 'claude-opus-5[1m]' } })),
    ...(await store.recordFrames([frame({ sessionId: 's2', taskId: 'task-2', toolCallId: 'batch', executionId: EXEC_A, payload: { total_tokens: 7 } })])),
  ];
  const secondMigration = report(await store.runMigrations()); // the replay fast path reads the shape probe
  return {
    firstMigration,
    secondMigration,
    outcomes,
    session1: rows(await store.listBySession('s1')),
    session2: rows(await store.listBySession('s2')),
    turn1: rows(await store.listByTurn('s1', 'turn-1')),
    health: await store.checkHealth(),
    counters: store.counters(),
    warnings: logger.lines,
  };
}

describe('host type parsers [postgres]', () => {
  const saved = new Map<number, Parser>();
  let dbs: TestDb[];
  let pools: pg.Pool[];
  beforeEach(() => {
    dbs = [];
    pools = [];
  });
  afterEach(async () => {
    for (const [oid, parser] of saved) pg.types.setTypeParser(oid, parser);
    saved.clear();
    for (const p of pools) await p.end();
    for (const d of dbs) await d.close();
  });
  const fresh = async (poolConfig: pg.PoolConfig = {}) => {
    const db = await openTestDb('postgres');
    dbs.push(db);
    const pool = poolFor({ connectionString: db.location, max: 4, ...poolConfig });
    pools.push(pool);
    return { db, pool };
  };
  const overrideGlobalParsers = () => {
    for (const [oid, parser] of Object.entries(HOST_PARSERS)) {
      saved.set(Number(oid), pg.types.getTypeParser(Number(oid), 'text'));
      pg.types.setTypeParser(Number(oid), parser);
    }
  };

  it('with the defaults, the scenario reads what it should (the baseline the overrides are held to)', async () => {
    const { db, pool } = await fresh();
    const t = await transcript(db, pool);
    expect(t.firstMigration.ok).toBe(true);
    expect(t.secondMigration.steps.every((s) => s.status === 'skipped')).toBe(true);
    expect(t.outcomes).toEqual(['persisted', 'persisted', 'persisted']);
    expect(t.session1.find((r) => r.tool_call_id === 'big')).toMatchObject({ total_tokens: BIG, tool_use_count: 0, duration_ms: 2n ** 53n, is_async: true });
    expect(t.session1.find((r) => r.tool_call_id === 'history')).toMatchObject({ source: 'backfill', total_tokens: 12, is_async: true });
    expect(t.health).toMatchObject({ state: 'activated', shortfall: 0, verdict: 'healthy' });
    expect(t.warnings).toEqual([]);
  });

  it('host global parsers for bool, int2/4/8, float4/8, numeric, json/jsonb, date, timestamp and timestamptz change nothing', async () => {
    const baseline = await fresh();
    const expected = await transcript(baseline.db, baseline.pool);
    overrideGlobalParsers();
    const { rows } = await baseline.pool.query<{ b: unknown }>('SELECT true AS b');
    expect(rows[0].b).toBe('yes'); // the override is really in force for the host's own queries
    const host = await fresh();
    expect(await transcript(host.db, host.pool)).toEqual(expected);
  });

  it('a pool created with its own `types` changes nothing either', async () => {
    const baseline = await fresh();
    const expected = await transcript(baseline.db, baseline.pool);
    const host = await fresh({ types: { getTypeParser: (() => (v: string) => `pool:${v}`) as unknown as typeof pg.types.getTypeParser } });
    expect((await host.pool.query<{ b: unknown }>('SELECT true AS b')).rows[0].b).toBe('pool:t');
    expect(await transcript(host.db, host.pool)).toEqual(expected);
  });
});
