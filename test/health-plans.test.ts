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
import { postgresWindow } from '../src/postgres/health.js';
import { sqliteWindow } from '../src/sqlite/health.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { explainGenerated, seqScansOf, type PlanNode } from './helpers/postgres-explain.js';
import { byDialect } from './helpers/by-dialect.js';
import { lastPercentSinceNs, seedHealthStore } from './helpers/health-store.js';

const MESSAGES = 100_000;
const SINCE_NS = lastPercentSinceNs(MESSAGES);
const STATEMENTS = ['countShortfallSinceCapture', 'countExcessSinceCapture', 'countCollisionsSinceCapture', 'maxObservedAtSinceCapture'] as const;

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
    await seedHealthStore(db, MESSAGES);
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
