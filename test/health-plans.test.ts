// EXPLAIN evidence that the health statements are index-driven: with capture_since in the
// last 1% of a 100k-message store, no statement scans the whole task_session_messages table
// on either dialect: SQLite without ANALYZE statistics (how hosts usually run it),
// PostgreSQL with and without statistics, under custom AND generic plans (the plan a
// prepared statement can fall into), and the counts are still right at that size.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import * as sqliteQueries from '../generated/sqlite/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { postgresWindow } from '../src/postgres/health.js';
import { sqliteWindow } from '../src/sqlite/health.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { explainGenerated, seqScansOf, type PlanNode } from './helpers/postgres-explain.js';
import { byDialect } from './helpers/by-dialect.js';
import { KEY, setKeys } from './helpers/activation-keys.js';
import { SECOND } from './helpers/host-timestamp.js';

const MESSAGES = 100_000;
const SESSIONS = 100;
const BASE_S = 1_767_225_600n; // 2026-01-01T00:00:00Z; message i is created at BASE + 86 i seconds
const SINCE_NS = (BASE_S + 86n * BigInt(MESSAGES - MESSAGES / 100)) * SECOND; // the last 1%
const STATEMENTS = ['countShortfallSinceCapture', 'countExcessSinceCapture', 'countCollisionsSinceCapture', 'maxObservedAtSinceCapture'] as const;

// Every 10th message is a subagent message; each has its row except when i % 1000 = 500
// (a missed write). In the window (i >= 99000) that is 100 subagents and one miss.
async function seed(db: TestDb): Promise<void> {
  const n = MESSAGES - 1;
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${SESSIONS - 1})
        SELECT 's' || i, 'task-' || i, '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00' FROM c;
      INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || (i % ${SESSIONS}),
               CASE WHEN i % 10 = 0
                    THEN '{"tool_call_id":"tc' || i || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"status":"completed"}}}'
                    ELSE '{"tool_call_id":"x' || i || '","normalized":{"kind":"read"}}' END,
               strftime('%Y-%m-%d %H:%M:%S', ${BASE_S} + 86 * i, 'unixepoch') || '.' || printf('%06d', (i * 137) % 1000000) || '+00:00'
          FROM c;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, 'unknown', json_extract(m.metadata, '$.tool_call_id'), 'live', m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE CAST(substr(m.id, 2) AS INTEGER) % 10 = 0 AND CAST(substr(m.id, 2) AS INTEGER) % 1000 <> 500;`);
  } else {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        SELECT 's' || i, 'task-' || i, '2026-01-01', '2026-01-01' FROM generate_series(0, ${SESSIONS - 1}) AS i;
      INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || (i % ${SESSIONS}),
               CASE WHEN i % 10 = 0
                    THEN '{"tool_call_id":"tc' || i || '","status":"completed","normalized":{"kind":"subagent_task","subagent_task":{"status":"completed"}}}'
                    ELSE '{"tool_call_id":"x' || i || '","normalized":{"kind":"read"}}' END,
               timestamp '2026-01-01' + (86 * i) * interval '1 second' + ((i * 137) % 1000000) * interval '1 microsecond'
          FROM generate_series(0, ${n}) AS i;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, agent_execution_id, tool_call_id, source, observed_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, 'unknown', m.metadata::jsonb ->> 'tool_call_id', 'live', m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE substr(m.id, 2)::int % 10 = 0 AND substr(m.id, 2)::int % 1000 <> 500;`);
  }
  await setKeys(db, { [KEY.captureSince]: formatKeyInstant(SINCE_NS), [KEY.executionSince]: formatKeyInstant(SINCE_NS) });
}

/** SQLite: the EXPLAIN QUERY PLAN lines of a generated statement, bound as the health check binds it. */
function sqlitePlan(sqlite: Database.Database, name: (typeof STATEMENTS)[number]): string[] {
  return sqlite
    .prepare(`EXPLAIN QUERY PLAN ${sqliteQueries[name].sql}`)
    .all(sqliteWindow(SINCE_NS))
    .map((r) => (r as { detail: string }).detail);
}

/** PostgreSQL: the plan nodes of a generated statement, bound as the health check binds it. */
const postgresPlan = (pool: pg.Pool, name: (typeof STATEMENTS)[number], generic: boolean): Promise<PlanNode[]> =>
  explainGenerated(pool, postgresQueries[name], postgresWindow(SINCE_NS), generic);

describeBothDialects('health: index-driven plans on a 100k-message store', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seed(db);
  });
  afterAll(async () => db.close());

  it('the health check answers correctly at this size (100 subagents in the window, one missed)', async () => {
    const started = performance.now();
    const report = await db.store().checkHealth();
    const ms = performance.now() - started;
    expect(report).toMatchObject({ shortfall: 1, excess: 0, collisions: 0, verdict: 'shortfall' });
    expect(report.last_observed_at).toMatch(/^2026-04-10T/);
    console.info(`[${dialect}] checkHealth on ${MESSAGES} messages, since in the last 1%: ${ms.toFixed(0)} ms (two shortfall evaluations)`);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('SQLite (no ANALYZE): every statement searches an index; none scans a table', async () => {
      const [stat1] = await db.query<{ n: number | bigint }>("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat1'");
      expect(Number(stat1.n)).toBe(0);
      for (const name of STATEMENTS) {
        const plan = sqlitePlan(db.sqlite!, name);
        expect(
          plan.filter((d) => /^SCAN (m|s|msg|task_session_messages|task_session_subagents)\b/.test(d)),
          `${name}: ${plan.join(' | ')}`,
        ).toEqual([]);
        expect(
          plan.some((d) => /^SEARCH s USING (COVERING )?INDEX idx_subagents_observed_at \(observed_at>\?\)/.test(d)),
          `${name}: ${plan.join(' | ')}`,
        ).toBe(true);
        if (name === 'countShortfallSinceCapture' || name === 'countExcessSinceCapture') {
          expect(plan, name).toContain('SEARCH m USING INDEX idx_messages_created_at (created_at>?)');
        }
      }
    });
  } else {
    for (const analyzed of [false, true]) {
      it(`PostgreSQL (${analyzed ? 'after ANALYZE' : 'no statistics'}): no plan scans task_session_messages or task_session_subagents, custom or generic`, async () => {
        if (analyzed) await db.exec('ANALYZE');
        for (const name of STATEMENTS) {
          for (const generic of [false, true]) {
            const nodes = await postgresPlan(db.pool!, name, generic);
            const label = `${name} (${generic ? 'generic' : 'custom'} plan)`;
            expect(seqScansOf(nodes, 'task_session_messages'), label).toEqual([]);
            // Without statistics too: a lone `observed_at >= $1` read as a third of the table and
            // scanned every row (count_excess_since_capture.sql says why it is a range now).
            expect(seqScansOf(nodes, 'task_session_subagents'), label).toEqual([]);
            if (name === 'countShortfallSinceCapture' || name === 'countExcessSinceCapture') {
              expect(
                nodes.some((n) => n['Index Name'] === 'idx_messages_created_at'),
                label,
              ).toBe(true);
            }
          }
        }
      });
    }
  }
});
