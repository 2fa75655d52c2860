// The single-statement backfill, as the property and resume tests' reference (issues 32 and
// 34): the chunk statement run ONCE over the whole session key range, after the high-water
// mark read first (AC-24d's order), in one transaction, as the backfill was before chunks; on
// SQLite over every message in storage order, as 0.2 read them, with no staged phase
// (scripts/bench/single-statement.ts). Its rows are read and then deleted, so the same store
// then runs the chunked backfill.
import * as postgresQueries from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { sqliteStorageOrderStatement, WHOLE_TABLE_MARK } from '../../scripts/bench/single-statement.js';
import { withoutId } from './backfill-helpers.js';
import { byDialect } from './by-dialect.js';
import { withPinnedSearchPath } from './pinned-search-path.js';
import type { TestDb } from './test-db.js';

/** The single-statement backfill: the chunk statement once, over every session key. */
export async function singleStatementRows(db: TestDb): Promise<{ rows: Record<string, unknown>[]; through: string }> {
  const sessions = (await db.query<{ id: string }>('SELECT id FROM task_sessions ORDER BY id')).map((s) => s.id);
  const upTo = sessions.length ? sessions[sessions.length - 1] : '';
  const through = await byDialect(db.dialect, {
    sqlite: async () => {
      const tx = db.sqlite!.transaction(() => {
        const mark = sqliteQueries.readBackfillThrough.get({}, db.sqlite!)!.backfill_through;
        if (sessions.length) db.sqlite!.prepare(sqliteStorageOrderStatement()).run({ after: '', upTo });
        return String(mark);
      });
      return tx.immediate();
    },
    postgres: () =>
      withPinnedSearchPath(db.pool!, async (client) => {
        const [mark] = await postgresQueries.readBackfillThrough.run(WHOLE_TABLE_MARK, client);
        if (sessions.length) await postgresQueries.backfillSubagentContexts.run({ sessionIds: sessions }, client);
        return mark.backfill_through;
      }),
  })();
  const rows = await backfilledRows(db);
  await db.exec(`DELETE FROM task_session_subagents`);
  return { rows, through };
}

export async function backfilledRows(db: TestDb): Promise<Record<string, unknown>[]> {
  const rows = await db.query<Record<string, unknown> & { id: string }>(
    `SELECT * FROM task_session_subagents ORDER BY task_session_id, tool_call_id, agent_execution_id`,
  );
  return withoutId(rows as never);
}
