// Synthetic Kandev stores for the benchmarks: host tables (task_sessions,
// task_session_messages) filled with a realistic message mix — chat messages, tool calls with
// JSON metadata, a given number of subagent launches, a few legacy rows with malformed
// metadata and a few that merely mention "subagent_task" — on SQLite or PostgreSQL.
//
// Generation is deterministic (seeded) and cached under .bench-cache/: a SQLite store is a
// file, a PostgreSQL store a database in the benchmark's persistent cluster. A store is
// generated into a temporary name and renamed when complete, and carries a manifest table
// (bench_store_manifest) naming the generator version, so a half-written or outdated store is
// never reused. Benchmarks add the package's tables to these stores and drop them again
// (resetSyntheticStore), leaving the host data as generated.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { hostSchema as postgresHostSchema } from '../../../generated/postgres/index.js';
import { hostSchema as sqliteHostSchema } from '../../../generated/sqlite/index.js';
import { goDriverTimestamp, type HostMessage, type HostSession } from '../../../src/demo/host-rows.js';
import { formatMicros } from '../../../src/instant.js';
import { clientFor, createDatabase, dropDatabase } from '../../lib/postgres-database.js';
import { progressBar } from './progress-bar.js';
import { GENERATOR_VERSION, syntheticHistory, type StoreProfile } from './synthetic-history.js';

const BATCH = 2_000;

export interface StoreManifest {
  generator: string;
  profile: StoreProfile;
  /** Indexes on the host tables as generated; anything else was added by a run and is dropped on reset. */
  hostIndexes: string[];
}

/** Path of a profile's cached SQLite store, generating it first when absent or outdated. */
export async function ensureSqliteStore(cacheDir: string, p: StoreProfile): Promise<string> {
  const file = join(cacheDir, 'sqlite', `${p.name}.db`);
  if (existsSync(file) && readSqliteManifest(file)?.generator === GENERATOR_VERSION) return file;
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  for (const f of [file, partial, `${file}-wal`, `${file}-shm`, `${partial}-wal`, `${partial}-shm`]) rmSync(f, { force: true });
  const db = new Database(partial);
  db.pragma('journal_mode = MEMORY'); // generation only: the file is discarded if this run dies (better-sqlite3's defensive mode refuses OFF)
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144'); // 256 MiB: random-UUID primary keys need the room
  for (const s of sqliteHostSchema) db.exec(s.sql);
  const insertSession = db.prepare('INSERT INTO task_sessions (id, task_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const insertMessage = db.prepare(
    `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const bar = progressBar(`sqlite ${p.name}`, p.messages);
  let done = 0;
  db.exec('BEGIN');
  for (const item of syntheticHistory(p)) {
    if (item.session) {
      const at = goDriverTimestamp(item.session.createdAtNs);
      insertSession.run(item.session.id, item.session.taskId, 'COMPLETED', at, at);
      continue;
    }
    const m = item.message!;
    insertMessage.run(
      m.id,
      m.sessionId,
      m.taskId,
      m.turnId,
      m.authorType,
      m.content,
      m.type,
      m.metadata,
      goDriverTimestamp(m.createdAtNs),
      m.updatedAtNs === null ? null : goDriverTimestamp(m.updatedAtNs),
    );
    if (++done % BATCH === 0) {
      db.exec('COMMIT');
      bar.update(done);
      db.exec('BEGIN');
    }
  }
  db.exec('COMMIT');
  writeSqliteManifest(db, p);
  db.pragma('journal_mode = WAL'); // benchmarks run the store as a host does
  db.close();
  renameSync(partial, file);
  bar.finish(`→ ${file} (${(statSync(file).size / 1e6).toFixed(0)} MB)`);
  return file;
}

function sqliteHostIndexes(db: Database.Database): string[] {
  return (
    db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('task_sessions', 'task_session_messages') AND sql IS NOT NULL ORDER BY name`,
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
}

function writeSqliteManifest(db: Database.Database, p: StoreProfile): void {
  const manifest: StoreManifest = { generator: GENERATOR_VERSION, profile: p, hostIndexes: sqliteHostIndexes(db) };
  db.exec('CREATE TABLE bench_store_manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  db.prepare('INSERT INTO bench_store_manifest (key, value) VALUES (?, ?)').run('manifest', JSON.stringify(manifest));
}

export function readSqliteManifest(file: string): StoreManifest | null {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare(`SELECT value FROM bench_store_manifest WHERE key = 'manifest'`).get() as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as StoreManifest) : null;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** Drops everything a benchmark run added (the package's tables, extra host indexes). */
export function resetSqliteStore(db: Database.Database, manifest: StoreManifest): void {
  const keep = new Set(['task_sessions', 'task_session_messages', 'bench_store_manifest']);
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[]).map(
    (r) => r.name,
  );
  for (const t of tables) if (!keep.has(t)) db.exec(`DROP TABLE IF EXISTS "${t}"`);
  for (const index of sqliteHostIndexes(db)) if (!manifest.hostIndexes.includes(index)) db.exec(`DROP INDEX IF EXISTS "${index}"`);
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/** URL of a profile's cached PostgreSQL store (a database named bench_<profile>), generating it when needed. */
export async function ensurePostgresStore(adminUrl: string, urlFor: (database: string) => string, p: StoreProfile): Promise<string> {
  const name = `bench_${p.name.replace(/-/g, '_')}`;
  const admin = clientFor(adminUrl);
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (exists && (await readPostgresManifest(urlFor(name)))?.generator === GENERATOR_VERSION) return urlFor(name);
    await dropDatabase(adminUrl, name);
    const partial = await createDatabase(adminUrl, `${name}_partial`, { replaceExisting: true });
    await fillPostgresStore(partial.url, p);
    await admin.query(`ALTER DATABASE ${name}_partial RENAME TO ${name}`);
    return urlFor(name);
  } finally {
    await admin.end();
  }
}

async function fillPostgresStore(url: string, p: StoreProfile): Promise<void> {
  const client = clientFor(url);
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off'); // generation only
    for (const s of postgresHostSchema) await client.query(s.sql);
    const bar = progressBar(`postgres ${p.name}`, p.messages);
    let sessions: HostSession[] = [];
    let messages: HostMessage[] = [];
    let done = 0;
    const flush = async () => {
      if (sessions.length) {
        await client.query(
          `INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
           SELECT id, task_id, 'COMPLETED', at, at FROM unnest($1::text[], $2::text[], $3::timestamp[]) AS s(id, task_id, at)`,
          [sessions.map((s) => s.id), sessions.map((s) => s.taskId), sessions.map((s) => formatMicros(s.createdAtNs))],
        );
        sessions = [];
      }
      if (messages.length) {
        await client.query(
          `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at, updated_at)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamp[], $10::timestamp[])`,
          [
            messages.map((m) => m.id),
            messages.map((m) => m.sessionId),
            messages.map((m) => m.taskId),
            messages.map((m) => m.turnId),
            messages.map((m) => m.authorType),
            messages.map((m) => m.content),
            messages.map((m) => m.type),
            messages.map((m) => m.metadata),
            messages.map((m) => formatMicros(m.createdAtNs)),
            messages.map((m) => (m.updatedAtNs === null ? null : formatMicros(m.updatedAtNs))),
          ],
        );
        done += messages.length;
        messages = [];
        bar.update(done);
      }
    };
    for (const item of syntheticHistory(p)) {
      if (item.session) sessions.push(item.session);
      else messages.push(item.message!);
      if (messages.length >= BATCH) await flush();
    }
    await flush();
    // Settle hint bits and statistics now, so the first measured scan does not pay for them.
    await client.query('VACUUM (ANALYZE) task_sessions');
    await client.query('VACUUM (ANALYZE) task_session_messages');
    const manifest: StoreManifest = { generator: GENERATOR_VERSION, profile: p, hostIndexes: await postgresHostIndexes(client) };
    await client.query('CREATE TABLE bench_store_manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    await client.query(`INSERT INTO bench_store_manifest (key, value) VALUES ('manifest', $1)`, [JSON.stringify(manifest)]);
    const size = (await client.query('SELECT pg_database_size(current_database()) AS bytes')).rows[0].bytes as string;
    bar.finish(`(${(Number(size) / 1e6).toFixed(0)} MB)`);
  } finally {
    await client.end();
  }
}

async function postgresHostIndexes(client: pg.ClientBase): Promise<string[]> {
  const rows = await client.query(
    `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('task_sessions', 'task_session_messages') ORDER BY indexname`,
  );
  return rows.rows.map((r: { indexname: string }) => r.indexname);
}

export async function readPostgresManifest(url: string): Promise<StoreManifest | null> {
  const client = clientFor(url);
  await client.connect();
  try {
    const rows = await client.query(`SELECT value FROM bench_store_manifest WHERE key = 'manifest'`);
    return rows.rowCount ? (JSON.parse(rows.rows[0].value) as StoreManifest) : null;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** Drops everything a benchmark run added (the package's tables and functions, extra host indexes). */
export async function resetPostgresStore(client: pg.ClientBase, manifest: StoreManifest): Promise<void> {
  const keep = new Set(['task_sessions', 'task_session_messages', 'bench_store_manifest']);
  const tables = (await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)).rows.map(
    (r: { tablename: string }) => r.tablename,
  );
  for (const t of tables) if (!keep.has(t)) await client.query(`DROP TABLE IF EXISTS "${t}" CASCADE`);
  for (const index of await postgresHostIndexes(client)) if (!manifest.hostIndexes.includes(index)) await client.query(`DROP INDEX IF EXISTS "${index}"`);
  const functions = await client.query(
    `SELECT p.oid::regprocedure::text AS f FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'subagent_context%'`,
  );
  for (const { f } of functions.rows as { f: string }[]) await client.query(`DROP FUNCTION IF EXISTS ${f} CASCADE`);
}
