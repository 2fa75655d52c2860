// A real database per openTestDb() call: a temp SQLite file, or a fresh PostgreSQL database on
// the run's server (scripts/lib/postgres-database.ts). Suites call it per test (beforeEach),
// so each test starts from a database of its own; a few seed one once per describe (beforeAll)
// and share it across their tests. Never a mock. The database is a copy of the starting state
// its layers name, built once per run (test/helpers/template-databases.ts): a template
// database on PostgreSQL, a template file on SQLite. Tests seed and inspect with plain SQL
// through exec/query; `$1`-style placeholders work on both (rewritten to SQLite's `@p1`).
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { describe, inject } from 'vitest';
import { createDatabase } from '../../scripts/lib/postgres-database.js';
import { createPostgresStore, createSqliteStore, type StoreOptions, type SubagentContextStore } from '../../src/index.js';
import { DIALECTS, type DialectName as Dialect } from '../../src/dialect.js';
import { byDialect } from './by-dialect.js';
import { layerScripts, startingStateFor, type SchemaLayer, type StartingState } from './template-databases.js';

export { DIALECTS, type DialectName as Dialect } from '../../src/dialect.js';
export type { SchemaLayer } from './template-databases.js';

export interface TestDb {
  readonly dialect: Dialect;
  /** SQLite file path, or PostgreSQL connection string. */
  readonly location: string;
  store(options?: StoreOptions): SubagentContextStore;
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  apply(layer: SchemaLayer): Promise<void>;
  /** The raw driver handle, for the rare test that needs it. */
  readonly sqlite?: Database.Database;
  readonly pool?: pg.Pool;
  close(): Promise<void>;
}

let dbCounter = 0;

/** The run's template of `state` on `dialect` (test/setup/template-databases.ts builds them). */
function template(dialect: Dialect, state: StartingState): string {
  const templates = inject('templates');
  if (!templates) throw new Error('no template databases: add test/setup/template-databases.ts to the globalSetup of this vitest config');
  return templates[dialect][state];
}

async function openSqlite(state: StartingState): Promise<TestDb> {
  const dir = mkdtempSync(join(tmpdir(), 'subagent-context-test-'));
  const file = join(dir, 'store.db');
  copyFileSync(template('sqlite', state), file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  const self: TestDb = {
    dialect: 'sqlite',
    location: file,
    sqlite: db,
    store: (options) => createSqliteStore(db, options),
    exec: async (sql) => void db.exec(sql),
    query: async <T>(sql: string, params: unknown[] = []) => {
      const stmt = db.prepare(sql.replace(/\$(\d+)/g, '@p$1'));
      const bound = Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]));
      const args = params.length ? [bound] : [];
      return (stmt.reader ? stmt.all(...args) : (stmt.run(...args), [])) as T[];
    },
    apply: async (layer) => {
      for (const s of layerScripts('sqlite', layer)) db.exec(s.sql);
    },
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

async function openPostgres(state: StartingState): Promise<TestDb> {
  const database = await createDatabase(inject('pgUrl'), `t_${process.pid}_${Date.now().toString(36)}_${dbCounter++}`, {
    template: template('postgres', state),
  });
  const pool = database.pool({ max: 10 });
  const self: TestDb = {
    dialect: 'postgres',
    location: database.url,
    pool,
    store: (options) => createPostgresStore(pool, options),
    exec: async (sql) => void (await pool.query(sql)),
    query: async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[],
    apply: async (layer) => {
      for (const s of layerScripts('postgres', layer)) await pool.query(s.sql);
    },
    close: () => database.drop(),
  };
  return self;
}

/**
 * A fresh database with the host tables, plus `layers` applied in order: a copy of the
 * longest starting state those layers begin with, and the layers past it applied to the copy.
 */
export async function openTestDb(dialect: Dialect, ...layers: SchemaLayer[]): Promise<TestDb> {
  const { state, rest } = startingStateFor(['host', ...layers]);
  const db = await byDialect(dialect, { sqlite: openSqlite, postgres: openPostgres })(state);
  for (const layer of rest) await db.apply(layer);
  return db;
}

/** Runs one suite per dialect: every behaviour is tested on both. */
export function describeBothDialects(name: string, suite: (dialect: Dialect) => void): void {
  describe.each(DIALECTS)(`${name} [%s]`, suite);
}
