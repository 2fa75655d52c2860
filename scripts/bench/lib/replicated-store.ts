// Large PostgreSQL benchmark stores, set-based (issue 32 item 5): a cached base store
// (synthetic-store.ts, generated message by message) copied N times inside the database, each
// copy an INSERT … SELECT of every session and message with its keys suffixed '~k' and its
// instants shifted back by the base's span per copy, so the store is N base stores laid end to
// end in time, as a host grows. No row passes through JavaScript: 20M messages take minutes,
// where generating them one by one would take most of an hour. The host's indexes and foreign
// key are dropped for the copies and rebuilt once after them (their DDL read from the catalog
// first), then VACUUM (ANALYZE) as for the base stores. Cached like the base stores: built
// under a temporary name, renamed when complete, its manifest naming the generator and copies.
import { clientFor, createDatabase, dropDatabase } from '../../lib/postgres-database.js';
import { progressBar } from './progress-bar.js';
import { ensurePostgresStore, readPostgresManifest, type StoreManifest } from './synthetic-store.js';
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
