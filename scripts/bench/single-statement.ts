// The single-statement backfill (0.2's, before chunks), as the chunked backfill's same-run
// reference (issue 32: chunked ≤ 1.2× it on the 1M stores): the high-water mark read first
// (AC-24d's order), then the chunk statement ONCE over every session key, in one transaction,
// under the same work_mem the chunks run with; on SQLite reading the messages themselves in
// storage order, as 0.2 read them, not the candidates the package stages first.
// test/helpers/single-statement-backfill.ts runs the same statements for the tests' rows; this one is timed. The package's table must exist
// (runMigrations({ backfill: 'defer' }) first); the rows it writes are left for the caller.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import * as postgresQueries from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { BACKFILL_WORK_MEM } from '../../src/postgres/migrations.js';

/**
 * PostgreSQL's mark read over the whole table in one statement, as 0.2 read it: the package
 * reads it in windows (queries/postgres/read_backfill_through.sql); one window with no edge is
 * the single read.
 */
export const WHOLE_TABLE_MARK = { before: 'infinity', limit: Number.MAX_SAFE_INTEGER };

/** The chunk statement's candidate scan: the staging table's range, each message by id. */
const SQLITE_STAGED_SCAN =
  '    FROM subagent_context_backfill_stage AS s\n' +
  '         CROSS JOIN task_session_messages AS m ON m.id = s.id\n' +
  '   WHERE (SELECT d.data_version FROM pragma_data_version AS d) IS NOT @stagedAt\n' +
  '     AND s.task_session_id > @after AND s.task_session_id <= @upTo\n' +
  '     AND m.task_session_id = s.task_session_id\n';
/** 0.2's scan: every message of the key range, in storage order. */
const SQLITE_STORAGE_ORDER_SCAN = '    FROM task_session_messages AS m NOT INDEXED\n   WHERE m.task_session_id > @after AND m.task_session_id <= @upTo\n';

/** The chunk statement's other source of ranking columns, the staged ones (src/sqlite/stage-freshness.ts): 0.2 read none. */
const SQLITE_STAGED_KEYS =
  "  SELECT s.rid, s.id, s.task_session_id, s.task_id, 'text', 'subagent_task', s.tool_call_id, s.created_utc9\n" +
  '    FROM subagent_context_backfill_stage AS s\n' +
  '   WHERE (SELECT d.data_version FROM pragma_data_version AS d) = @stagedAt\n' +
  '     AND s.task_session_id > @after AND s.task_session_id <= @upTo\n';
/** A branch of no row, so the UNION ALL stays valid. */
const SQLITE_NO_KEYS = '  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL WHERE false\n';

/** The chunk statement's target: the connection's temp rows table, kept under the lock by keep_backfill_rows.sql. */
const SQLITE_AHEAD_TARGET = 'INSERT INTO temp.subagent_context_backfill_rows (';
/** 0.2's target: the package's table itself. */
const SQLITE_TABLE_TARGET = 'INSERT INTO task_session_subagents (';
/** The temp rows table's extra column, the winning message (check_backfill_rows.sql): not in 0.2's statement. */
const SQLITE_SOURCE_COLUMN = ',\n  source_message_id\n)';
const SQLITE_SOURCE_VALUE = ',\n  r.id                                            -- source_message_id: the winner, checked under the lock\n';
/** The chunk statement's end, and 0.2's: AC-22's DO NOTHING in the statement itself (keep_backfill_rows.sql's now). */
const SQLITE_AHEAD_END = '  FROM parsed AS r';
const SQLITE_TABLE_END = '  FROM parsed AS r\n WHERE true\nON CONFLICT (task_session_id, agent_execution_id, tool_call_id) DO NOTHING';

/**
 * 0.2's SQLite statement: the package's chunk statement with the staged candidates replaced by
 * every message of the key range, read in storage order (`NOT INDEXED`), inserting into the
 * package's table itself. Same predicates, same winner rule, 0.2's access path; it needs no
 * staging table and no temp rows table.
 */
export function sqliteStorageOrderStatement(): string {
  const text = sqliteQueries.backfillSubagentContexts.sql;
  for (const [anchor, name] of [
    [SQLITE_STAGED_SCAN, 'SQLITE_STAGED_SCAN'],
    [SQLITE_STAGED_KEYS, 'SQLITE_STAGED_KEYS'],
    [SQLITE_AHEAD_TARGET, 'SQLITE_AHEAD_TARGET'],
    [SQLITE_AHEAD_END, 'SQLITE_AHEAD_END'],
    [SQLITE_SOURCE_COLUMN, 'SQLITE_SOURCE_COLUMN'],
    [SQLITE_SOURCE_VALUE, 'SQLITE_SOURCE_VALUE'],
  ])
    if (text.split(anchor).length !== 2) throw new Error(`single-statement: the SQLite backfill statement changed shape; update ${name}`);
  return text
    .replace(SQLITE_STAGED_SCAN, SQLITE_STORAGE_ORDER_SCAN)
    .replace(SQLITE_STAGED_KEYS, SQLITE_NO_KEYS)
    .replace(SQLITE_AHEAD_TARGET, SQLITE_TABLE_TARGET)
    .replace(SQLITE_AHEAD_END, SQLITE_TABLE_END)
    .replace(SQLITE_SOURCE_COLUMN, '\n)')
    .replace(SQLITE_SOURCE_VALUE, '\n');
}

export function sqliteSingleStatement(db: Database.Database): number {
  const sessions = db.prepare('SELECT id FROM task_sessions ORDER BY id').pluck().all() as string[];
  const statement = db.prepare(sqliteStorageOrderStatement());
  const tx = db.transaction(() => {
    sqliteQueries.readBackfillThrough.get({}, db);
    return sessions.length ? statement.run({ after: '', upTo: sessions[sessions.length - 1] }).changes : 0;
  });
  return tx.immediate();
}

export async function postgresSingleStatement(client: pg.ClientBase): Promise<number> {
  const sessions = (await client.query<{ id: string }>('SELECT id FROM task_sessions ORDER BY id')).rows.map((r) => r.id);
  await client.query('BEGIN');
  try {
    await postgresQueries.setLocalWorkMem.run({ workMem: BACKFILL_WORK_MEM }, client);
    await postgresQueries.readBackfillThrough.run(WHOLE_TABLE_MARK, client);
    const rows = sessions.length ? ((await postgresQueries.backfillSubagentContexts.runWithCounts({ sessionIds: sessions }, client)).rowCount ?? 0) : 0;
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}
