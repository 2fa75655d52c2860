// EXPLAIN evidence that the usage ledger's report statements cost what the ledger holds, not
// what the history holds: a host store of 5,000 sessions, 50,000 messages and 5,000 subagent
// rows, of which only the newest 50 sessions were imported (their runs and parents in the
// ledger). Whether scoped to a task, windowed, both or neither, no plan scans
// task_session_messages or task_sessions: the ledger's sessions come from the ledger's own
// keys, each looked up by task_sessions' key, and a window probes each of them
// (idx_subagents_session_id, idx_messages_session_created). A run's subagent row is found by
// its key (SQLite, and PostgreSQL without statistics); with statistics PostgreSQL may hash-join
// the subagent table instead when it estimates that cheaper, never for the window's probes.
// SQLite without statistics; PostgreSQL before and after ANALYZE, custom and generic plans.
// And the figures are right at that size.
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import * as sqliteQueries from '../generated/sqlite/index.js';
import { formatKeyInstant } from '../src/instant.js';
import { postgresReportParams } from '../src/postgres/report.js';
import { boundariesFromKeys } from '../src/report/boundaries.js';
import type { ReportBounds } from '../src/report/queries.js';
import { sqliteReportParams } from '../src/sqlite/report.js';
import { byDialect } from './helpers/by-dialect.js';
import { SECOND } from './helpers/host-timestamp.js';
import { explainGenerated, seqScansOf } from './helpers/postgres-explain.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const SESSIONS = 5_000;
const MESSAGES = 50_000; // 10 per session; every 10th a subagent launch with its row (5,000)
const LEDGER_FROM = SESSIONS - 50; // sessions s4950 … s4999 were imported
const BASE_S = 1_767_225_600n; // 2026-01-01T00:00:00Z; message i is created at BASE + 60 i seconds
const SINCE_NS = (BASE_S + 60n * BigInt(MESSAGES - MESSAGES / 100)) * SECOND; // the last 1%
const STATEMENTS = ['reportUsageLedger', 'reportUsageLedgerSessions'] as const;
const TABLES = ['task_session_messages', 'task_sessions', 'task_session_subagents'];

/** Message i is in session i % SESSIONS, so every session has messages across the whole history. */
async function seed(db: TestDb): Promise<void> {
  const n = MESSAGES - 1;
  const ledger = `
      INSERT INTO task_session_subagent_usage (task_session_id, agent_execution_id, tool_call_id, model, source, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
        SELECT s.task_session_id, s.agent_execution_id, s.tool_call_id, 'm', 'claude-code', 2, 100, 10, 1000, NULL, '2026-12-01 00:00:00'
          FROM task_session_subagents AS s
         WHERE s.task_session_id IN (SELECT t.id FROM task_sessions AS t WHERE t.created_at = '2026-12-01 00:00:00');
      INSERT INTO task_session_parent_usage (task_session_id, model, source, requests, input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens, updated_at)
        SELECT t.id, 'm', 'claude-code', 1, 7, 3, 0, 0, '2026-12-01 00:00:00' FROM task_sessions AS t WHERE t.created_at = '2026-12-01 00:00:00';`;
  await db.exec(
    byDialect(db.dialect, {
      sqlite: `
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${SESSIONS - 1})
        SELECT 's' || i, 'task-' || (i / 2), CASE WHEN i >= ${LEDGER_FROM} THEN '2026-12-01 00:00:00' ELSE '2026-01-01 00:00:00' END, '2026-01-01 00:00:00' FROM c;
      INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, metadata, created_at)
        WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 2), 'turn-' || i, NULL,
               strftime('%Y-%m-%d %H:%M:%S', ${BASE_S} + 60 * i, 'unixepoch') || '+00:00'
          FROM c;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, total_tokens, source, observed_at, settled_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, m.turn_id, 'exec-' || m.task_session_id, 'tc' || m.id, 500, 'live', m.created_at, m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE CAST(substr(m.id, 2) AS INTEGER) % 10 = 0;${ledger}`,
      postgres: `
      INSERT INTO task_sessions (id, task_id, created_at, updated_at)
        SELECT 's' || i, 'task-' || (i / 2), CASE WHEN i >= ${LEDGER_FROM} THEN timestamp '2026-12-01' ELSE timestamp '2026-01-01' END, '2026-01-01'
          FROM generate_series(0, ${SESSIONS - 1}) AS i;
      INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, metadata, created_at)
        SELECT 'm' || i, 's' || (i % ${SESSIONS}), 'task-' || ((i % ${SESSIONS}) / 2), 'turn-' || i, NULL, timestamp '2026-01-01' + (60 * i) * interval '1 second'
          FROM generate_series(0, ${n}) AS i;
      INSERT INTO task_session_subagents (id, task_session_id, task_id, turn_id, agent_execution_id, tool_call_id, total_tokens, source, observed_at, settled_at, updated_at)
        SELECT 'r' || m.id, m.task_session_id, m.task_id, m.turn_id, 'exec-' || m.task_session_id, 'tc' || m.id, 500, 'live', m.created_at, m.created_at, m.created_at
          FROM task_session_messages AS m
         WHERE substr(m.id, 2)::int % 10 = 0;${ledger}`,
    }),
  );
}

const SCOPES: { label: string; bounds: ReportBounds }[] = [null, SINCE_NS].flatMap((sinceNs) =>
  [null, [`task-${(SESSIONS - 2) / 2}`]].map((taskIds) => ({
    label: `since ${sinceNs === null ? 'none' : formatKeyInstant(sinceNs)}, taskIds ${JSON.stringify(taskIds)}`,
    bounds: { sinceNs, untilNs: null, taskIds, ...boundariesFromKeys({ capture_since: null, backfill_through: null, execution_since: null }) },
  })),
);

describeBothDialects('report: the usage ledger statements cost what the ledger holds', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seed(db);
  }, 120_000);
  afterAll(async () => db.close());

  it('report() at this size: the ledger of the 50 imported sessions, scoped and windowed', async () => {
    // Message i is in session i % 5000, and a launch when i % 10 = 0: the 500 sessions numbered a
    // multiple of 10 hold ten subagent rows each, so the ledger's 50 sessions hold 5 × 10 runs.
    const started = performance.now();
    const whole = (await db.store().report()).usage_ledger!;
    const ms = performance.now() - started;
    expect(whole.all).toMatchObject({ sessions: 50, runs: 50, subagent_tokens: 50 * 1110, parent_tokens: 50 * 10, subagent_unreported_rows: 50 });
    expect(whole.all.reported_total_tokens).toBe(50 * 500);
    expect(whole.by_subagent_type_and_model[0].cache_creation_input_tokens).toBeNull();
    // The last task holds sessions s4998 and s4999; a window from the last 1% keeps the sessions with activity in it.
    const card = (await db.store().report({ taskIds: [`task-${(SESSIONS - 2) / 2}`] })).usage_ledger!;
    expect(card.by_session.map((s) => s.task_session_id).sort()).toEqual(['s4998', 's4999']);
    const windowed = (await db.store().report({ since: formatKeyInstant(SINCE_NS) })).usage_ledger!;
    // Messages 49,500 … 49,999 fall in sessions 4500 … 4999: the 50 ledger sessions, each once.
    expect(windowed.all.sessions).toBe(50);
    console.info(`[${dialect}] report() with the ledger, ${MESSAGES} messages, ${SESSIONS} sessions: ${ms.toFixed(0)} ms`);
  });

  if (byDialect(dialect, { sqlite: true, postgres: false })) {
    it('SQLite (no ANALYZE): the sessions by key, no scan of messages, sessions or subagent rows', () => {
      const sqlite = db.sqlite as Database.Database;
      for (const { label, bounds } of SCOPES) {
        for (const name of STATEMENTS) {
          const plan = sqlite
            .prepare(`EXPLAIN QUERY PLAN ${sqliteQueries[name].sql}`)
            .all(sqliteReportParams(bounds))
            .map((r) => (r as { detail: string }).detail);
          const at = `${name} (${label}): ${plan.join(' | ')}`;
          expect(
            plan.filter((d) => /^SCAN (t|s|m|task_sessions|task_session_messages|task_session_subagents)\b/.test(d)),
            at,
          ).toEqual([]);
          expect(plan, at).toContain('SEARCH t USING INDEX sqlite_autoindex_task_sessions_1 (id=?)');
        }
      }
    });
  } else {
    for (const analyzed of [false, true]) {
      it(`PostgreSQL (${analyzed ? 'after ANALYZE' : 'no statistics'}): no plan scans messages, sessions or subagent rows, custom or generic`, async () => {
        if (analyzed) await db.exec('ANALYZE');
        for (const { label, bounds } of SCOPES) {
          for (const name of STATEMENTS) {
            for (const generic of [false, true]) {
              const nodes = await explainGenerated(db.pool!, postgresQueries[name], postgresReportParams(bounds), generic);
              const at = `${name} (${label}, ${generic ? 'generic' : 'custom'} plan)`;
              for (const table of TABLES) {
                // The runs' own subagent rows (alias sub) are joined by key, or hash-joined over
                // the table when PostgreSQL's statistics make that cheaper (ANALYZE here: 5,000
                // rows); the window's probes (alias s) never scan.
                const scans = seqScansOf(nodes, table).filter((n) => !(analyzed && n.Alias === 'sub'));
                expect(scans, `${at}: ${table}`).toEqual([]);
              }
            }
          }
        }
      });
    }
  }
});
