// The single-statement backfill (0.2's, before chunks), as the chunked backfill's same-run
// reference (issue 32: chunked ≤ 1.2× it on the 1M stores): the high-water mark read first
// (AC-24d's order), then the chunk statement ONCE over every session key, in one transaction,
// under the same work_mem the chunks run with. test/helpers/single-statement-backfill.ts is
// the tests' copy (rows compared); this one is timed. The package's table must exist
// (runMigrations({ backfill: 'defer' }) first); the rows it writes are left for the caller.
import type Database from 'better-sqlite3';
import type pg from 'pg';
import * as postgresQueries from '../../generated/postgres/index.js';
import * as sqliteQueries from '../../generated/sqlite/index.js';
import { BACKFILL_WORK_MEM } from '../../src/postgres/migrations.js';

export function sqliteSingleStatement(db: Database.Database): number {
  const sessions = db.prepare('SELECT id FROM task_sessions ORDER BY id').pluck().all() as string[];
  const tx = db.transaction(() => {
    sqliteQueries.readBackfillThrough.get({}, db);
    return sessions.length ? sqliteQueries.backfillSubagentContexts.run({ after: '', upTo: sessions[sessions.length - 1] }, db).changes : 0;
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
