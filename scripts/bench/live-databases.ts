// Fresh databases for the live-writer and batch benchmarks: the host tables, the workload's
// sessions, and the package's schema installed through runMigrations(). One SQLite file per
// synchronous mode; one PostgreSQL database (fsync on) per run of the section.
import Database from 'better-sqlite3';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostSchema as postgresHostSchema } from '../../generated/postgres/index.js';
import { hostSchema as sqliteHostSchema } from '../../generated/sqlite/index.js';
import { createPostgresStore, createSqliteStore } from '../../src/index.js';
import type { RunningPostgres } from '../lib/embedded-postgres.js';
import { createDatabase } from '../lib/postgres-database.js';
import type { LiveWorkload } from './live-workload.js';

const SESSION_AT = '2026-08-12 13:00:00.000000';

export type SqliteSync = 'NORMAL' | 'FULL';

export interface SqliteLiveDb {
  db: Database.Database;
  clear(): void;
  rowCount(): number;
  close(): void;
}

export async function openSqliteLiveDb(dir: string, sync: SqliteSync, w: LiveWorkload): Promise<SqliteLiveDb> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `live-${sync.toLowerCase()}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${sync}`);
  db.pragma('foreign_keys = ON');
  for (const s of sqliteHostSchema) db.exec(s.sql);
  const insert = db.prepare('INSERT INTO task_sessions (id, task_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  for (const s of w.sessions) insert.run(s.id, s.taskId, 'RUNNING', `${SESSION_AT}+00:00`, `${SESSION_AT}+00:00`);
  const report = await createSqliteStore(db).runMigrations();
  if (!report.ok) throw new Error(`runMigrations failed on the live benchmark database: ${JSON.stringify(report.steps)}`);
  return {
    db,
    clear: () => void db.exec('DELETE FROM task_session_subagents; DELETE FROM task_session_subagent_usage'),
    rowCount: () => (db.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get() as { n: number }).n,
    close: () => {
      db.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
  };
}

export interface PostgresLiveDb {
  url: string;
  clear(): Promise<void>;
  rowCount(): Promise<number>;
  drop(): Promise<void>;
}

export async function openPostgresLiveDb(server: RunningPostgres, w: LiveWorkload): Promise<PostgresLiveDb> {
  const database = await createDatabase(server.url, 'bench_live', { replaceExisting: true });
  const pool = database.pool({ max: 1 });
  for (const s of postgresHostSchema) await pool.query(s.sql);
  await pool.query(
    `INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
     SELECT id, task_id, 'RUNNING', $3::timestamp, $3::timestamp FROM unnest($1::text[], $2::text[]) AS s(id, task_id)`,
    [w.sessions.map((s) => s.id), w.sessions.map((s) => s.taskId), SESSION_AT],
  );
  const report = await createPostgresStore(pool).runMigrations();
  if (!report.ok) throw new Error(`runMigrations failed on the live benchmark database: ${JSON.stringify(report.steps)}`);
  return {
    url: database.url,
    clear: async () => void (await pool.query('TRUNCATE task_session_subagents, task_session_subagent_usage')),
    rowCount: async () => Number((await pool.query('SELECT COUNT(*) AS n FROM task_session_subagents')).rows[0].n),
    drop: () => database.drop(),
  };
}
