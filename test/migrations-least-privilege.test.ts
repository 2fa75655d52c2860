// docs/deploying.md "Permissions": a migrating role with exactly the privileges listed for
// runMigrations() activates the store (an adversarial review, 2026-12-05, found the list
// short: the backfill locks each chunk's sessions FOR KEY SHARE, which needs UPDATE on a
// column of task_sessions, and the table's foreign key needs REFERENCES; such a role failed
// 42501 on every boot and never activated). And without the column grant it fails by name.
// PostgreSQL only: SQLite has no roles, only the file's and its folder's write access.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, poolFor } from '../scripts/lib/postgres-database.js';
import { ACTIVATION_KEYS, createPostgresStore } from '../src/index.js';
import { metaKeys } from './helpers/migration-db.js';
import { insertSession, insertSubagentMessage } from './helpers/seed-host-rows.js';
import { openTestDb, type TestDb } from './helpers/test-db.js';

describe('runMigrations under a role with the documented privileges [postgres]', () => {
  let db: TestDb;
  const role = `sc_migrator_${process.pid}_${Date.now().toString(36)}`;
  beforeEach(async () => {
    db = await openTestDb('postgres');
    for (const id of ['s1', 's2', 's3']) {
      await insertSession(db, id, 'T');
      await insertSubagentMessage(db, { id: `m-${id}`, sessionId: id, toolCallId: `tc-${id}`, createdAt: '2026-03-01 10:00:00' });
    }
  });
  afterEach(async () => {
    await db.close();
    const admin = clientFor(new URL('/postgres', db.location).toString());
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  /** The role, granted what docs/deploying.md lists (on PostgreSQL 15 also CREATE on the database, for the JSON helper's schema). */
  async function migrateAs(grantColumnUpdate: boolean) {
    const database = new URL(db.location).pathname.slice(1);
    await db.exec(
      `CREATE ROLE ${role} LOGIN PASSWORD 'pw';
       GRANT CREATE ON DATABASE "${database}" TO ${role};
       GRANT USAGE, CREATE ON SCHEMA public TO ${role};
       GRANT SELECT, REFERENCES ON task_sessions TO ${role};
       GRANT SELECT ON task_session_messages TO ${role};
       ${grantColumnUpdate ? `GRANT UPDATE (updated_at) ON task_sessions TO ${role};` : ''}`,
    );
    const url = new URL(db.location);
    url.username = role;
    url.password = 'pw';
    const pool = poolFor({ connectionString: url.toString(), max: 2 });
    try {
      return await createPostgresStore(pool).runMigrations();
    } finally {
      await pool.end();
    }
  }

  it('activates the store, every row backfilled', async () => {
    const report = await migrateAs(true);
    expect(report.ok, JSON.stringify(report.steps.filter((s) => s.status === 'failed'))).toBe(true);
    const rows = await db.query<{ tool_call_id: string }>('SELECT tool_call_id FROM task_session_subagents ORDER BY tool_call_id');
    expect(rows.map((r) => r.tool_call_id)).toEqual(['tc-s1', 'tc-s2', 'tc-s3']);
    expect(Object.keys(await metaKeys(db)).sort()).toEqual(Object.values(ACTIVATION_KEYS).sort());
  });

  it('without UPDATE on a column of task_sessions the backfill fails by name (42501), the rest applied', async () => {
    const report = await migrateAs(false);
    expect(report.ok).toBe(false);
    const failed = report.steps.filter((s) => s.status === 'failed');
    expect(failed.map((s) => [s.name, s.error])).toEqual([
      ['backfill_subagent_contexts', expect.stringMatching(/permission denied for table task_sessions \(42501\)/)],
    ]);
  });
});
