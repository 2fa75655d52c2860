// EXPLAIN evidence that read_backfill_through walks the host's created_at index backwards to
// the newest qualifying message instead of reading the whole table: it runs beside the
// backfill's own full scan, once per store, and a second scan doubled the one-time pass. The
// planner's choice follows its guess of how often the text prefilter holds, so a prefilter
// rewritten with another estimate (GLOB alone is guessed rare: SQLite then scanned 1M rows and
// sorted them, 8 ms → 1.3 s on dense-1m) fails here. SQLite without ANALYZE statistics (how
// hosts run it); PostgreSQL with its statistics (no parameters: one plan).
import { FIRST_MARK_WINDOW } from '../src/migrations/backfill-mark.js';
import { WHOLE_TABLE_MARK } from '../scripts/bench/single-statement.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as postgresQueries from '../generated/postgres/index.js';
import * as sqliteQueries from '../generated/sqlite/index.js';
import { byDialect } from './helpers/by-dialect.js';
import { explainGenerated, seqScansOf } from './helpers/postgres-explain.js';
import { withPinnedSearchPath } from './helpers/pinned-search-path.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const MESSAGES = 20_000;

/** Every 50th message a subagent message, the rest ordinary tool calls. */
async function seed(db: TestDb): Promise<void> {
  const metadata = (i: string) =>
    `CASE WHEN ${i} % 50 = 0 THEN '{"tool_call_id":"tc' || ${i} || '","normalized":{"kind":"subagent_task","subagent_task":{}}}' ELSE '{"tool_call_id":"x' || ${i} || '","normalized":{"kind":"read"}}' END`;
  await db.exec(
    byDialect(db.dialect, {
      sqlite: `
        INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('s1', 'task-1', '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00');
        INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
          WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${MESSAGES - 1})
          SELECT 'm' || i, 's1', 'task-1', ${metadata('i')}, strftime('%Y-%m-%d %H:%M:%S', 1767225600 + 60 * i, 'unixepoch') || '+00:00' FROM c;`,
      postgres: `
        INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('s1', 'task-1', '2026-01-01', '2026-01-01');
        INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at)
          SELECT 'm' || i, 's1', 'task-1', ${metadata('i')}, timestamp '2026-01-01' + (60 * i) * interval '1 second'
            FROM generate_series(0, ${MESSAGES - 1}) AS i;
        ANALYZE task_session_messages;`,
    }),
  );
}

describeBothDialects('read_backfill_through: an index walk, not a second full scan', (dialect) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(dialect, 'package');
    await seed(db);
  });
  afterAll(async () => db.close());

  it('names the newest qualifying message', async () => {
    const through = byDialect(dialect, {
      sqlite: () => sqliteQueries.readBackfillThrough.get({}, db.sqlite!)?.backfill_through,
      postgres: async () => (await withPinnedSearchPath(db.pool!, (c) => postgresQueries.readBackfillThrough.run(WHOLE_TABLE_MARK, c)))[0]?.backfill_through,
    });
    // Message 19950 is the last multiple of 50: 2026-01-01 plus 19950 minutes.
    expect(await through()).toBe('2026-01-14T20:30:00.000000000Z');
  });

  it('reads the messages through the created_at index, newest first, without sorting the table', async () => {
    if (byDialect(dialect, { sqlite: true, postgres: false })) {
      const plan = db
        .sqlite!.prepare(`EXPLAIN QUERY PLAN ${sqliteQueries.readBackfillThrough.sql}`)
        .all()
        .map((r) => (r as { detail: string }).detail);
      expect(plan, plan.join(' | ')).toContain('SCAN n USING INDEX idx_messages_created_at');
      expect(
        plan.filter((d) => d === 'SCAN n' || d.startsWith('USE TEMP B-TREE FOR ORDER BY')),
        plan.join(' | '),
      ).toEqual([]);
      return;
    }
    // The first window the package reads, and the whole table at once; custom and generic plans.
    for (const params of [{ before: 'infinity', limit: FIRST_MARK_WINDOW }, WHOLE_TABLE_MARK])
      for (const generic of [false, true]) {
        const nodes = await explainGenerated(db.pool!, postgresQueries.readBackfillThrough, params, generic);
        const shape = JSON.stringify(nodes.map((n) => `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''}`));
        expect(seqScansOf(nodes, 'task_session_messages'), shape).toEqual([]);
        expect(
          nodes.filter((n) => n['Node Type'] === 'Sort'),
          shape,
        ).toEqual([]);
      }
  });
});
