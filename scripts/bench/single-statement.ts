// The single-statement backfill (0.2's, before chunks), as the chunked backfill's same-run
// reference (issue 32: chunked ≤ 1.2× it on the 1M stores): the high-water mark read first
// (AC-24d's order), then the chunk statement ONCE over every session key, in one transaction,
// under the same work_mem the chunks run with; on SQLite in storage order, as 0.2 read it.
// test/helpers/single-statement-backfill.ts is the tests' copy (rows compared, so it keeps the
// chunks' access path); this one is timed. The package's table must exist
// (runMigrations({ backfill: 'defer' }) first); the rows it writes are left for the caller.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import * as postgresQueries from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { BACKFILL_WORK_MEM } from '../../src/postgres/migrations.js';

/** The chunk statement's message scan; the single statement reads it NOT INDEXED. */
const SQLITE_CHUNK_SCAN = '    FROM task_session_messages AS m\n   WHERE m.task_session_id > @after AND m.task_session_id <= @upTo\n';

/**
 * 0.2's SQLite statement read the messages in storage order (`NOT INDEXED`); the chunk
 * statement reads a chunk's sessions through the host's (task_session_id, created_at) index,
 * which over every session costs 1.5–2.7× the storage-order read (BENCHMARKS.md, "The backfill
 * rows since the chunked backfill"). Same statement, same predicate, 0.2's access path.
 */
function sqliteStorageOrderStatement(): string {
  const text = sqliteQueries.backfillSubagentContexts.sql;
  if (text.split(SQLITE_CHUNK_SCAN).length !== 2)
    throw new Error("single-statement: the SQLite backfill statement's message scan changed shape; update SQLITE_CHUNK_SCAN");
  return text.replace(SQLITE_CHUNK_SCAN, SQLITE_CHUNK_SCAN.replace('AS m\n', 'AS m NOT INDEXED\n'));
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
    await postgresQueries.readBackfillThrough.run(undefined, client);
    const rows = sessions.length
      ? ((await postgresQueries.backfillSubagentContexts.runWithCounts({ after: '', upTo: sessions[sessions.length - 1], sessionIds: sessions }, client))
          .rowCount ?? 0)
      : 0;
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}
