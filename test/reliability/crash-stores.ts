// The crash-safety campaign's stores (./crash-safety.test.ts): a template per phase, seeded once
// (./crash-store-seed.ts), a fresh copy per run (a file copy, or CREATE DATABASE … TEMPLATE), a
// probe to inspect a copy between runs, and the clean boot that follows each kill.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { inject } from 'vitest';
import { clientFor, createDatabase, databaseName, dropDatabase, poolFor } from '../../scripts/lib/postgres-database.js';
import { createPostgresStore, createSqliteStore, type MigrationReport } from '../../src/index.js';
import { byDialect } from '../helpers/by-dialect.js';
import type { Dialect } from '../helpers/test-db.js';
import { crashStoreSeed, type Phase } from './crash-store-seed.js';

/** One connection to a store copy, for inspecting it between runs. */
export interface Probe {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface StoreCopies {
  /** Makes a fresh copy of the phase's template and returns its location. */
  fresh(): Promise<string>;
  probe(location: string): Promise<Probe>;
  drop(location: string): Promise<void>;
  dispose(): Promise<void>;
}

export async function sqliteCopies(phase: Phase): Promise<StoreCopies> {
  const dir = mkdtempSync(join(tmpdir(), 'subagent-context-crash-'));
  const template = join(dir, 'template.db');
  const db = new Database(template);
  db.pragma('journal_mode = WAL');
  db.exec(crashStoreSeed('sqlite', phase));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let n = 0;
  return {
    async fresh() {
      const file = join(dir, `copy-${n++}.db`);
      copyFileSync(template, file);
      return file;
    },
    async probe(file) {
      const conn = new Database(file);
      return {
        query: async <T>(sql: string, params: unknown[] = []) => {
          const stmt = conn.prepare(sql.replace(/\$(\d+)/g, '?'));
          return stmt.all(...params) as T[];
        },
        close: async () => void conn.close(),
      };
    },
    async drop(file) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    },
    async dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function postgresCopies(phase: Phase): Promise<StoreCopies> {
  const serverUrl = inject('pgUrl');
  const template = await createDatabase(serverUrl, `crash_tpl_${phase}_${process.pid}`, { replaceExisting: true });
  // A client, not template.pool(): CREATE DATABASE … TEMPLATE needs the template idle.
  const seeder = clientFor(template.url);
  await seeder.connect();
  await seeder.query(crashStoreSeed('postgres', phase));
  await seeder.end();
  let n = 0;
  return {
    async fresh() {
      return (await createDatabase(serverUrl, `crash_${phase}_${process.pid}_${n++}`, { template: template.name })).url;
    },
    async probe(url) {
      const conn = clientFor(url); // a dropped database ends the session; the test reads no more
      await conn.connect();
      return { query: async <T>(sql: string, params: unknown[] = []) => (await conn.query(sql, params)).rows as T[], close: () => conn.end() };
    },
    async drop(url) {
      await dropDatabase(serverUrl, databaseName(url));
    },
    async dispose() {
      await template.drop();
    },
  };
}

/** The next boot after a kill: runMigrations() on a connection of its own, opened as the child opens one (test/fixtures/open-store.mjs). */
export async function migrateInProcess(dialect: Dialect, location: string): Promise<MigrationReport> {
  return byDialect(dialect, {
    sqlite: async () => {
      const db = new Database(location, { timeout: 30_000 });
      try {
        db.pragma('journal_mode = WAL');
        db.pragma('foreign_keys = ON');
        return await createSqliteStore(db).runMigrations();
      } finally {
        db.close();
      }
    },
    postgres: async () => {
      const pool = poolFor({ connectionString: location, max: 4 });
      try {
        return await createPostgresStore(pool).runMigrations();
      } finally {
        await pool.end();
      }
    },
  })();
}
