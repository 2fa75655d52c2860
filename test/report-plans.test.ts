// EXPLAIN evidence that the report statements are index-served where a window applies: with
// `since` in the last 1% of a 100k-message store (10k subagent rows), no report statement
// scans task_session_subagents or task_session_messages on either dialect: SQLite without
// ANALYZE statistics, PostgreSQL with and without statistics, under custom AND generic plans.
// The window's rows come through idx_subagents_observed_at, a touched turn's rows through
// idx_subagents_turn_id, a session's activity through idx_messages_session_created, and the
// probe for a backfilled row's live twin (shadowed_backfill) seeks a task_session_id index,
// never a scan or a hash of the table. And the figures are still right at that size.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import * as sqliteQueries from '../generated/sqlite/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { boundariesFromKeys } from '../src/report/boundaries.js';
import { postgresReportParams } from '../src/postgres/report.js';
import { sqliteReportParams } from '../src/sqlite/report.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { explainGenerated, seqScansOf, type PlanNode } from './helpers/postgres-explain.js';
import { SECOND } from './helpers/host-timestamp.js';

const MESSAGES = 100_000;
const SESSIONS = 100;
const BASE_S = 1_767_225_600n; // 2026-01-01T00:00:00Z; message i is created at BASE + 86 i seconds
const SINCE_NS = (BASE_S + 86n * BigInt(MESSAGES - MESSAGES / 100)) * SECOND; // the last 1%
const KEY = formatKeyInstant((BASE_S + 86n * 50_000n) * SECOND);
const STATEMENTS = ['reportRowCounts', 'reportTokens', 'reportTokenDistribution', 'reportFanOut', 'reportCards'] as const;

/** Every 10th message is a subagent launch with its row; a session's turn spans 300 message numbers (3 subagents), and turn ids are unique across sessions as real ones are. */
async function seed(db: TestDb): Promise<void> {
  const n = MESSAGES - 1;
  if (byDialect(db.dialect, { sqlite: true, postgres: false })) {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${SESSIONS - 1})
        SELECT 's' || i, 'task-' || (i / 2), '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00' FROM c;
      INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, metadata, created_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 2), 'turn-' || (i % ${SESSIONS}) || '-' || (i / 300), NULL,
               strftime('%Y-%m-%d %H:%M:%S', ${BASE_S} + 86 * i, 'unixepoch') || '.' || printf('%06d', (i * 137) % 1000000) || '+00:00'
          FROM c;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, total_tokens, source, observed_at, settled_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, m.turn_id, 'exec-' || m.task_session_id, 'tc' || m.id,
               CASE WHEN CAST(substr(m.id, 2) AS INTEGER) % 20 = 0 THEN NULL ELSE 1000 + CAST(substr(m.id, 2) AS INTEGER) END,
               'live', m.created_at, m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE CAST(substr(m.id, 2) AS INTEGER) % 10 = 0;
      INSERT INTO kandev_meta (key, value) VALUES ('subagent_context_capture_since', '${KEY}'), ('subagent_context_backfill_through', '${KEY}'), ('subagent_context_execution_since', '${KEY}');`);
  } else {
    await db.exec(`
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        SELECT 's' || i, 'task-' || (i / 2), '2026-01-01', '2026-01-01' FROM generate_series(0, ${SESSIONS - 1}) AS i;
      INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, metadata, created_at)
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 2), 'turn-' || (i % ${SESSIONS}) || '-' || (i / 300), NULL,
               timestamp '2026-01-01' + (86 * i) * interval '1 second' + ((i * 137) % 1000000) * interval '1 microsecond'
          FROM generate_series(0, ${n}) AS i;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, total_tokens, source, observed_at, settled_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, m.turn_id, 'exec-' || m.task_session_id, 'tc' || m.id,
               CASE WHEN substr(m.id, 2)::int % 20 = 0 THEN NULL ELSE 1000 + substr(m.id, 2)::int END,
               'live', m.created_at, m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE substr(m.id, 2)::int % 10 = 0;
      INSERT INTO kandev_meta (key, value) VALUES ('subagent_context_capture_since', '${KEY}'), ('subagent_context_backfill_through', '${KEY}'), ('subagent_context_execution_since', '${KEY}');`);
  }
}

const keys = { capture_since: KEY, backfill_through: KEY, execution_since: KEY };
const bounds = (taskIds: string[] | null) => ({ sinceNs: SINCE_NS, untilNs: null, taskIds, ...boundariesFromKeys(keys) });

function sqlitePlan(sqlite: Database.Database, name: (typeof STATEMENTS)[number], taskIds: string[] | null): string[] {
  return sqlite
    .prepare(`EXPLAIN QUERY PLAN ${sqliteQueries[name].sql}`)
    .all(sqliteReportParams(bounds(taskIds)))
    .map((r) => (r as { detail: string }).detail);
}

/** The plan of a generated statement as report() binds it; `generic` forces the generic plan. */
const postgresPlan = (pool: pg.Pool, name: (typeof STATEMENTS)[number], generic: boolean): Promise<PlanNode[]> =>
  explainGenerated(pool, postgresQueries[name], postgresReportParams(bounds(null)), generic);

/**
 * The plan without reportCards' history branch: a generic plan keeps the branch for a report
 * with no start (every session, a scan by design) under a one-time filter `$n = '-infinity'`,
 * never run when the window has a start; a custom plan drops it.
 */
function windowBranch(node: PlanNode): PlanNode[] {
  if (/ = '-infinity'/.test(node['One-Time Filter'] ?? '')) return []; // the window branch's gate is `<> '-infinity'`
  return [node, ...(node.Plans ?? []).flatMap(windowBranch)];
}

/** Scans of the window's rows: every alias but reportFanOut's `a`, the whole-turn completion. */
const windowScans = (nodes: PlanNode[]) => nodes.filter((n) => n['Relation Name'] === 'task_session_subagents' && n.Alias !== 'a');

describeBothDialects('report: index-served plans on a 100k-message store', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seed(db);
  });
  afterAll(async () => db.close());

  it('report() with since in the last 1% answers correctly at this size', async () => {
    const started = performance.now();
    const r = await db.store().report({ since: formatKeyInstant(SINCE_NS) });
    const ms = performance.now() - started;
    // Messages 99000…99999: a subagent at every 10th, 100 rows, in sessions 0, 10, … 90. A
    // turn is (session, i / 300): 99000 / 300 = 330 exactly, so turns 330–332 hold 3 rows in
    // each of the 10 sessions, and turn 333 (99900…99999) one.
    expect(r.provenance.rows).toBe(100);
    expect(r.fan_out).toMatchObject({
      known: [
        { subagents: 1, turns: 10 },
        { subagents: 3, turns: 30 },
      ],
      unknown: [],
      turns_before_since: 0,
    });
    // Every 20th message's row has no tokens: i % 20 = 0 among i % 10 = 0 in the window, 50 of 100.
    expect(r.tokens).toMatchObject({ settled: 100, measured: 50, unmeasured: 50 });
    expect(r.cards).toMatchObject({ sessions: 100, tasks: 50, sessions_with_subagents: 10 });
    console.info(`[${dialect}] report() on ${MESSAGES} messages, since in the last 1%: ${ms.toFixed(0)} ms`);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('SQLite (no ANALYZE): every statement searches an index; none scans either big table', async () => {
      for (const taskIds of [null, ['task-3']]) {
        for (const name of STATEMENTS) {
          const plan = sqlitePlan(db.sqlite!, name, taskIds);
          const label = `${name} ${JSON.stringify(taskIds)}: ${plan.join(' | ')}`;
          expect(
            plan.filter((d) => /^SCAN (s|a|m|task_session_messages|task_session_subagents)\b/.test(d)),
            label,
          ).toEqual([]);
          if (name === 'reportCards') {
            expect(plan, label).toContain('SEARCH m USING COVERING INDEX idx_messages_session_created (task_session_id=? AND created_at>? AND created_at<?)');
            expect(
              plan.some((d) => /^SEARCH s USING INDEX idx_subagents_session_id/.test(d)),
              label,
            ).toBe(true);
          } else {
            expect(
              plan.some((d) => /^SEARCH s USING INDEX idx_subagents_observed_at \(observed_at>\? AND observed_at<\?\)/.test(d)),
              label,
            ).toBe(true);
          }
          if (name === 'reportFanOut') expect(plan, label).toContain('SEARCH a USING INDEX idx_subagents_turn_id (turn_id=?)');
          const twins = plan.filter((d) => /\btwin\b/.test(d));
          expect(twins.length > 0, label).toBe(name !== 'reportCards');
          for (const d of twins) expect(d, label).toMatch(/^SEARCH twin USING INDEX \S+ \(task_session_id=\?/);
        }
      }
    });
  } else {
    for (const analyzed of [false, true]) {
      it(`PostgreSQL (${analyzed ? 'after ANALYZE' : 'no statistics'}): the window is an index range; no plan scans task_session_messages, custom or generic`, async () => {
        if (analyzed) await db.exec('ANALYZE');
        for (const name of STATEMENTS) {
          for (const generic of [false, true]) {
            const nodes = await postgresPlan(db.pool!, name, generic);
            const label = `${name} (${generic ? 'generic' : 'custom'} plan)`;
            expect(seqScansOf(nodes, 'task_session_messages'), label).toEqual([]);
            // The window itself is always an index range. (reportFanOut's completion of the
            // touched turns, alias a, may be a hash join over the whole table when PostgreSQL
            // judges 10k rows cheaper to read than ~100 turn_id probes; it has no window.)
            if (analyzed) expect(seqScansOf(windowScans(nodes), 'task_session_subagents'), label).toEqual([]);
            if (name !== 'reportCards')
              expect(
                nodes.some((n) => n['Index Name'] === 'idx_subagents_observed_at'),
                label,
              ).toBe(true);
            // The live-twin probe (shadowed_backfill): an index scan per backfilled row, never hashed over a scan.
            const twins = nodes.filter((n) => /^twin/.test(n.Alias ?? ''));
            expect(twins.length > 0, label).toBe(name !== 'reportCards');
            for (const n of twins) expect(n['Node Type'], label).toMatch(/^Index (Only )?Scan$/);
          }
        }
      });
    }
    it("PostgreSQL: reportCards looks the window's sessions up by key, never scanning task_sessions (20,000 more sessions)", async () => {
      // Sessions outside the window, as a long history has them: as a semi-join the planner
      // hashed the window's sessions against a scan of every one (report_cards.sql says why).
      await db.exec(`INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        SELECT 'old-' || i, 'task-old-' || i, '2025-01-01', '2025-01-01' FROM generate_series(1, 20000) AS i`);
      try {
        for (const analyzed of [false, true]) {
          if (analyzed) await db.exec('ANALYZE task_sessions');
          for (const generic of [false, true]) {
            const nodes = await postgresPlan(db.pool!, 'reportCards', generic);
            const label = `reportCards (${analyzed ? 'after ANALYZE' : 'no fresh statistics'}, ${generic ? 'generic' : 'custom'} plan)`;
            const inWindow = windowBranch(nodes[0]);
            expect(seqScansOf(inWindow, 'task_sessions'), label).toEqual([]);
            expect(
              inWindow.some((n) => n['Relation Name'] === 'task_sessions' && /^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/.test(n['Node Type'])),
              label,
            ).toBe(true);
          }
        }
      } finally {
        await db.exec(`DELETE FROM task_sessions WHERE id LIKE 'old-%'`);
      }
    });
  }
});
