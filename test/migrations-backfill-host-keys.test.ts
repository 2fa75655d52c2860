// The chunked backfill against what a host may do to its session keys (an adversarial review
// of the PostgreSQL walk, 2026-12-05), on both dialects, each against the single statement's
// rows on the same store:
//   - a session re-keyed while a chunk waits on it. PostgreSQL's `… LIMIT n FOR KEY SHARE`
//     returned the waited-for row with its NEW key in its old key's place, and the cursor
//     jumped past every session in between (24 of 40 skipped, the keys written all the same).
//     SQLite's chunk waits for the host's write lock before reading anything;
//   - task_sessions.id under another collation than the messages' task_session_id: the chunk
//     also bounded the messages by a key range, compared under the messages' collation while
//     the cursor follows the sessions', and dropped sessions.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { byDialect } from './helpers/by-dialect.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { backfilledRows, singleStatementRows } from './helpers/single-statement-backfill.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const pad = (i: number) => String(i).padStart(2, '0');

/** A host process re-keying s16 in a write transaction held for 500 ms; says so once it holds the lock. */
const SQLITE_HOST_REKEY = `
const db = new (require('better-sqlite3'))(process.argv[1]);
db.prepare('BEGIN IMMEDIATE').run();
db.prepare("UPDATE task_sessions SET id = 'zz' WHERE id = 's16'").run();
process.stdout.write('locked\\n');
setTimeout(() => { db.prepare('COMMIT').run(); db.close(); }, 500);
`;

/** A session per id, each but `without` with one completed subagent message. */
async function seed(db: TestDb, ids: readonly string[], without?: string): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await insertSession(db, id, 'T');
    if (id !== without) await insertSubagentMessage(db, { id: `m-${id}`, sessionId: id, toolCallId: `tc-${id}`, createdAt: `2026-03-01 10:00:${pad(i)}` });
  }
}

/** Resolves once a backend of this database waits on a row or table lock (the migrator, here). */
async function migratorWaitsOnLock(db: TestDb): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (row.n > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the migrator never waited on the host’s lock');
}

describeBothDialects('runMigrations: the backfill against the host’s session keys', (dialect) => {
  let db: TestDb;
  afterEach(async () => db.close());

  it('a session re-keyed while a chunk waits on it: every other session is walked', async () => {
    db = await openTestDb(dialect, 'package');
    const ids = Array.from({ length: 40 }, (_, i) => `s${pad(i + 1)}`);
    // s16 has no message: the host's foreign key (no ON UPDATE) lets it re-key only such a session.
    await seed(db, ids, 's16');
    const reference = await singleStatementRows(db);
    expect(reference.rows).toHaveLength(39);

    // The session walk (PostgreSQL's window walk follows no session key: it locks a session only
    // for the row it writes, in the window's statement).
    const migrate = () => db.store().runMigrations({ backfillChunk: { maxSessions: 16, walk: 'sessions' } });
    const report = await byDialect(dialect, {
      postgres: async () => {
        const host = await db.pool!.connect();
        try {
          await host.query('BEGIN');
          await host.query("UPDATE task_sessions SET id = 'zz' WHERE id = 's16'");
          const run = migrate();
          await migratorWaitsOnLock(db); // the first chunk, on s16
          await host.query('COMMIT');
          return await run;
        } finally {
          host.release();
        }
      },
      sqlite: async () => {
        // The host in another process (better-sqlite3 blocks this one while the migrator waits):
        // it holds the write lock over its re-key for 500 ms; the migrator waits, then walks.
        const host = spawn(process.execPath, ['-e', SQLITE_HOST_REKEY, db.location], { stdio: ['ignore', 'pipe', 'inherit'] });
        const exited = once(host, 'exit');
        await once(host.stdout, 'data'); // it holds the lock
        const report = await migrate();
        expect((await exited)[0]).toBe(0);
        return report;
      },
    })();
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    expect(await backfilledRows(db)).toEqual(reference.rows);
  });

  it('session ids under another collation than the messages’ column: no session is dropped', async () => {
    db = await openTestDb(dialect);
    // The sessions' key order is the database's (byte order); the messages' column compares
    // case-insensitively, where a, B, c, D sort unlike B, D, a, c.
    const collation = byDialect(dialect, { postgres: '"und-x-icu"', sqlite: 'NOCASE' });
    const host = readFileSync(`schema/host/${dialect}/001_host_tables.sql`, 'utf8').replace(
      'task_session_id TEXT NOT NULL REFERENCES',
      `task_session_id TEXT COLLATE ${collation} NOT NULL REFERENCES`,
    );
    expect(host).toContain(collation);
    await db.exec('DROP TABLE task_session_messages; DROP TABLE task_sessions;');
    await db.exec(host);
    const ids = ['a', 'B', 'c', 'D', 'e1', 'E2', 'f', 'G'];
    await seed(db, ids);

    const report = await db.store().runMigrations({ backfillChunk: { maxSessions: 1 } });
    expect(report.ok, JSON.stringify(report.steps)).toBe(true);
    const rows = await db.query<{ task_session_id: string; tool_call_id: string }>('SELECT task_session_id, tool_call_id FROM task_session_subagents');
    expect(rows.map((r) => `${r.task_session_id} ${r.tool_call_id}`).sort()).toEqual(ids.map((id) => `${id} tc-${id}`).sort());
  });
});
