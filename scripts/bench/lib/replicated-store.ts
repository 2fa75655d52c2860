// Large benchmark stores on both dialects, set-based (issue 32 item 5): a cached base store
// (synthetic-store.ts, generated message by message) copied N times inside the database, each
// copy an INSERT … SELECT of every session and message with its keys suffixed '~k' and its
// instants shifted back by the base's span per copy, so the store is N base stores laid end to
// end in time, as a host grows. No row passes through JavaScript: 20M messages take minutes,
// where generating them one by one would take most of an hour. The host's indexes and foreign
// key are dropped for the copies and rebuilt once after them (their DDL read from the catalog
// first), then VACUUM (ANALYZE) as for the base stores. Cached like the base stores: built
// under a temporary name, renamed when complete, its manifest naming the generator and copies.
// SQLite likewise within one file: the base file copied, each further copy read from the base
// file attached, the message indexes dropped and rebuilt around the copies; the instants are
// text, shifted by whole days on their date part only (date() on the first ten characters), so
// the time of day keeps its microseconds.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { clientFor, createDatabase, dropDatabase } from '../../lib/postgres-database.js';
import { progressBar } from './progress-bar.js';
import { ensurePostgresStore, ensureSqliteStore, readPostgresManifest, readSqliteManifest, type StoreManifest } from './synthetic-store.js';
import { GENERATOR_VERSION, STORE_PROFILES, type StoreProfile, type StoreProfileName } from './synthetic-history.js';

/** The large stores: a base profile and how many copies of it. */
export const REPLICATED_PROFILES = {
  'sparse-20m': { base: 'sparse-1m', copies: 20 },
  'sparse-10m': { base: 'sparse-1m', copies: 10 },
  'sparse-5m': { base: 'sparse-1m', copies: 5 },
} as const satisfies Record<string, { base: StoreProfileName; copies: number }>;
export type ReplicatedProfileName = keyof typeof REPLICATED_PROFILES;

const GENERATOR = `${GENERATOR_VERSION}+replicated-v1`;

export function replicatedProfile(name: ReplicatedProfileName): StoreProfile {
  const { base, copies } = REPLICATED_PROFILES[name];
  const b = STORE_PROFILES[base];
  return {
    name,
    description: `${copies} copies of ${base}, laid end to end in time`,
    messages: b.messages * copies,
    subagentMessages: b.subagentMessages * copies,
    sessions: b.sessions * copies,
    days: b.days * copies,
    seed: b.seed,
  };
}

const MESSAGE_COLUMNS = 'author_type, author_id, content, requests_input, type, metadata';
/** A key suffixed for copy k; '' and NULL stay as they are (they are not recordable either way). */
const suffixed = (column: string) => `CASE WHEN COALESCE(${column}, '') = '' THEN ${column} ELSE ${column} || '~' || $1::int END`;

/** URL of the replicated store, building it (from the cached base) when absent or outdated. */
export async function ensureReplicatedPostgresStore(adminUrl: string, urlFor: (database: string) => string, name: ReplicatedProfileName): Promise<string> {
  const database = `bench_${name.replace(/-/g, '_')}`;
  const probe = clientFor(adminUrl);
  await probe.connect();
  const exists = await probe.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]).finally(() => probe.end());
  if (exists.rowCount === 1 && (await readPostgresManifest(urlFor(database)))?.generator === GENERATOR) return urlFor(database);
  const { base, copies } = REPLICATED_PROFILES[name];
  const baseUrl = await ensurePostgresStore(adminUrl, urlFor, STORE_PROFILES[base]);
  const baseDatabase = new URL(baseUrl).pathname.slice(1);
  await dropDatabase(adminUrl, database);
  const partial = await createDatabase(adminUrl, `${database}_partial`, { replaceExisting: true, template: baseDatabase });
  const client = clientFor(partial.url);
  await client.connect();
  const profile = replicatedProfile(name);
  try {
    await client.query('SET synchronous_commit = off');
    await client.query("SET maintenance_work_mem = '1GB'");
    const days = STORE_PROFILES[base].days;
    // The host's message indexes and foreign key, as the catalog has them, dropped for the copies.
    const indexes = (
      await client.query<{ name: string; ddl: string; constraint: boolean }>(
        `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS ddl, con.oid IS NOT NULL AS constraint
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype = 'p'
          WHERE i.indrelid = 'task_session_messages'::regclass`,
      )
    ).rows;
    const fks = (
      await client.query<{ name: string; ddl: string }>(
        `SELECT conname AS name, pg_get_constraintdef(oid) AS ddl FROM pg_constraint WHERE conrelid = 'task_session_messages'::regclass AND contype = 'f'`,
      )
    ).rows;
    for (const fk of fks) await client.query(`ALTER TABLE task_session_messages DROP CONSTRAINT "${fk.name}"`);
    for (const ix of indexes) {
      if (ix.constraint) await client.query(`ALTER TABLE task_session_messages DROP CONSTRAINT "${ix.name}"`);
      else await client.query(`DROP INDEX "${ix.name}"`);
    }
    const bar = progressBar(`postgres ${name}`, profile.messages);
    const baseMessages = STORE_PROFILES[base].messages;
    bar.update(baseMessages);
    for (let k = 1; k < copies; k++) {
      const shift = `make_interval(days => $1::int * ${days})`;
      await client.query(
        `INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
         SELECT s.id || '~' || $1::int, ${suffixed('s.task_id')}, s.state, s.created_at - ${shift}, s.updated_at - ${shift}
           FROM task_sessions AS s WHERE strpos(s.id, '~') = 0`,
        [k],
      );
      await client.query(
        `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, ${MESSAGE_COLUMNS}, created_at, updated_at)
         SELECT m.id || '~' || $1::int, m.task_session_id || '~' || $1::int, ${suffixed('m.task_id')}, m.turn_id, ${MESSAGE_COLUMNS},
                m.created_at - ${shift}, m.updated_at - ${shift}
           FROM task_session_messages AS m WHERE strpos(m.id, '~') = 0`,
        [k],
      );
      bar.update(baseMessages * (k + 1));
    }
    process.stderr.write(`postgres ${name}: rebuilding ${indexes.length} indexes and ${fks.length} foreign key …\n`);
    for (const ix of indexes) {
      if (ix.constraint) await client.query(`ALTER TABLE task_session_messages ADD CONSTRAINT "${ix.name}" PRIMARY KEY (id)`);
      else await client.query(ix.ddl);
    }
    for (const fk of fks) await client.query(`ALTER TABLE task_session_messages ADD CONSTRAINT "${fk.name}" ${fk.ddl}`);
    await client.query('VACUUM (ANALYZE) task_sessions');
    await client.query('VACUUM (ANALYZE) task_session_messages');
    const next: StoreManifest = { ...(await readPostgresManifest(baseUrl))!, generator: GENERATOR, profile };
    await client.query(`UPDATE bench_store_manifest SET value = $1 WHERE key = 'manifest'`, [JSON.stringify(next)]);
    const size = (await client.query('SELECT pg_database_size(current_database()) AS bytes')).rows[0].bytes as string;
    bar.finish(`(${(Number(size) / 1e9).toFixed(1)} GB)`);
  } finally {
    await client.end();
  }
  const admin = clientFor(adminUrl);
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${database}_partial RENAME TO ${database}`);
  } finally {
    await admin.end();
  }
  return urlFor(database);
}

/** Path of the replicated SQLite store, building it (from the cached base file) when absent or outdated. */
export async function ensureReplicatedSqliteStore(cacheDir: string, name: ReplicatedProfileName): Promise<string> {
  const file = join(cacheDir, 'sqlite', `${name}.db`);
  if (existsSync(file) && readSqliteManifest(file)?.generator === GENERATOR) return file;
  const { base, copies } = REPLICATED_PROFILES[name];
  const baseFile = await ensureSqliteStore(cacheDir, STORE_PROFILES[base]);
  const partial = `${file}.partial`;
  for (const f of [file, partial, `${file}-wal`, `${file}-shm`, `${partial}-wal`, `${partial}-shm`]) rmSync(f, { force: true });
  copyFileSync(baseFile, partial); // the base is closed and checkpointed: the file is all of it
  const db = new Database(partial);
  const profile = replicatedProfile(name);
  try {
    db.pragma('journal_mode = MEMORY'); // generation only: the partial file is discarded if this run dies
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF'); // every copied message's session is copied first, in the same transaction
    db.pragma('cache_size = -1048576'); // 1 GiB: the primary keys' B-trees take the copies in key order, not file order
    const indexes = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'task_session_messages' AND sql IS NOT NULL`).all() as {
      name: string;
      sql: string;
    }[];
    for (const ix of indexes) db.exec(`DROP INDEX "${ix.name}"`);
    // Each copy reads the base file, not the growing store (whose base rows a filter would find only by scanning it all).
    db.prepare('ATTACH DATABASE ? AS base').run(baseFile);
    const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all('task_session_messages') as { name: string }[]).map((c) => c.name);
    const days = STORE_PROFILES[base].days;
    if (!Number.isInteger(days)) throw new Error(`${base} spans ${days} days: a copy is shifted by whole days`);
    const shifted = (column: string) =>
      `CASE WHEN ${column} IS NULL THEN NULL ELSE date(substr(${column}, 1, 10), '-' || (@k * ${days}) || ' days') || substr(${column}, 11) END`;
    const suffixedText = (column: string) => `CASE WHEN COALESCE(${column}, '') = '' THEN ${column} ELSE ${column} || '~' || @k END`;
    const messageExpression: Record<string, string> = {
      id: `m.id || '~' || @k`,
      task_session_id: `m.task_session_id || '~' || @k`,
      task_id: suffixedText('m.task_id'),
      created_at: shifted('m.created_at'),
      updated_at: shifted('m.updated_at'),
    };
    const copySessions = db.prepare(
      `INSERT INTO task_sessions (id, task_id, state, created_at, updated_at)
       SELECT s.id || '~' || @k, ${suffixedText('s.task_id')}, s.state, ${shifted('s.created_at')}, ${shifted('s.updated_at')}
         FROM base.task_sessions AS s`,
    );
    const copyMessages = db.prepare(
      `INSERT INTO task_session_messages (${columns.join(', ')})
       SELECT ${columns.map((c) => messageExpression[c] ?? `m.${c}`).join(', ')}
         FROM base.task_session_messages AS m`,
    );
    const bar = progressBar(`sqlite ${name}`, profile.messages);
    const baseMessages = STORE_PROFILES[base].messages;
    bar.update(baseMessages);
    for (let k = 1; k < copies; k++) {
      db.transaction(() => {
        copySessions.run({ k: BigInt(k) }); // an integer: a JS number binds as REAL (~1.0)
        copyMessages.run({ k: BigInt(k) });
      })();
      bar.update(baseMessages * (k + 1));
    }
    db.exec('DETACH DATABASE base');
    process.stderr.write(`sqlite ${name}: rebuilding ${indexes.length} indexes …\n`);
    for (const ix of indexes) db.exec(ix.sql);
    const manifest = readSqliteManifest(baseFile)!;
    const next: StoreManifest = { ...manifest, generator: GENERATOR, profile };
    db.prepare(`UPDATE bench_store_manifest SET value = ? WHERE key = 'manifest'`).run(JSON.stringify(next));
    db.pragma('journal_mode = WAL'); // benchmarks run the store as a host does
    db.close();
    renameSync(partial, file);
    bar.finish(`→ ${file} (${(statSync(file).size / 1e9).toFixed(1)} GB)`);
    return file;
  } finally {
    if (db.open) db.close();
  }
}
