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
import { hostSchema as postgresHostSchema } from '../../generated/postgres/index.js';
import { hostSchema as sqliteHostSchema } from '../../generated/sqlite/index.js';
import { goDriverTimestamp, type HostMessage, type HostSession } from '../../src/demo/host-rows.js';
import { seededRandom, type SeededRandom } from '../../src/demo/seeded-random.js';
import { formatMicros } from '../../src/instant.js';
import { clientFor, createDatabase, dropDatabase } from './postgres-database.js';

/** Bump when the generated content changes: cached stores of another version are rebuilt. */
export const GENERATOR_VERSION = 'synthetic-store-v2';

export interface StoreProfile {
  name: string;
  description: string;
  messages: number;
  subagentMessages: number;
  sessions: number;
  /** Days the messages span, ending at END_OF_HISTORY; a store grows at a steady rate. */
  days: number;
  seed: number;
}

const RATE_PER_DAY = 2_000; // messages per day: the reference store's 240k span four months

function profile(name: string, description: string, messages: number, subagentMessages: number, seed: number): StoreProfile {
  return { name, description, messages, subagentMessages, sessions: Math.ceil(messages / 120), days: messages / RATE_PER_DAY, seed };
}

export const STORE_PROFILES = {
  reference: profile('reference', '~330 MB reference store: ~250 subagent messages among ~240k', 240_000, 253, 1),
  'sparse-1m': profile('sparse-1m', '1M messages, 0.02% subagent messages', 1_000_000, 200, 2),
  'dense-1m': profile('dense-1m', '1M messages, 5% subagent messages', 1_000_000, 50_000, 3),
  // The scaling row (issue 20): the sparse shape at a quarter and four times sparse-1m.
  'sparse-250k': profile('sparse-250k', '250k messages, 0.02% subagent messages', 250_000, 50, 7),
  'sparse-4m': profile('sparse-4m', '4M messages, 0.02% subagent messages', 4_000_000, 800, 8),
  'reference-quick': profile('reference-quick', 'quick: 24k messages, 25 subagent messages', 24_000, 25, 4),
  'sparse-quick': profile('sparse-quick', 'quick: 100k messages, 0.02% subagent messages', 100_000, 20, 5),
  'dense-quick': profile('dense-quick', 'quick: 100k messages, 5% subagent messages', 100_000, 5_000, 6),
} as const satisfies Record<string, StoreProfile>;

export type StoreProfileName = keyof typeof STORE_PROFILES;

/** The newest message's instant in every store. */
const END_OF_HISTORY_NS = BigInt(Date.UTC(2026, 7, 12, 13, 30, 0)) * 1_000_000n;
const NS_PER_DAY = 86_400_000_000_000n;

// ---------------------------------------------------------------- content

const WORDS =
  'the session turn agent review change file test diff build error cache token model context subagent schema index query migration backfill writer health commit branch deploy config handler stream frame payload result status update retry timeout parse render card step cost report'.split(
    ' ',
  );

/** A long seeded text; messages take slices of it, so generating 1M of them stays cheap. */
function textPool(rng: SeededRandom): string {
  const parts: string[] = [];
  let length = 0;
  while (length < 1 << 20) {
    const w = rng.pick(WORDS);
    parts.push(w);
    length += w.length + 1;
  }
  return parts.join(' ');
}

function uuid(rng: SeededRandom): string {
  const h = rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const MODELS = ['claude-opus-5[1m]', 'claude-sonnet-5', 'claude-haiku-4-5'];
const TOOL_KINDS = ['read_file', 'search', 'shell', 'edit', 'read_file', 'shell'];

/** Deterministic sessions and messages for a profile, in created_at order. */
export function* syntheticHistory(p: StoreProfile): Generator<{ session?: HostSession; message?: HostMessage }> {
  const rng = seededRandom(p.seed * 7919 + 17);
  const text = textPool(rng);
  const slice = (min: number, max: number) => {
    const len = rng.int(min, max);
    const at = rng.int(0, text.length - len - 1);
    return text.slice(at, at + len);
  };
  const start = END_OF_HISTORY_NS - BigInt(Math.round(p.days * 1e6)) * (NS_PER_DAY / 1_000_000n);
  const step = (END_OF_HISTORY_NS - start) / BigInt(p.messages);
  const perSession = p.messages / p.sessions;

  const sessions: (HostSession & { messages: number })[] = [];
  let subagentIndex = 0;
  let nextSubagentAt = Math.floor(rng.next() * (p.messages / p.subagentMessages));

  for (let i = 0; i < p.messages; i++) {
    const createdAtNs = start + BigInt(i) * step + BigInt(rng.int(0, Number(step / 1000n) - 1)) * 1000n;
    // Sessions open in time order; up to four are active at once.
    const newest = Math.min(p.sessions - 1, Math.floor(i / perSession));
    while (sessions.length <= newest) {
      const s = { id: uuid(rng), taskId: uuid(rng), createdAtNs, messages: 0 };
      sessions.push(s);
      yield { session: { id: s.id, taskId: s.taskId, createdAtNs } };
    }
    const session = sessions[Math.max(0, newest - rng.int(0, 3))];
    const turnId = `${session.id.slice(0, 8)}-turn-${Math.floor(session.messages++ / 12)}`;
    // The oldest tenth of the store predates updated_at being written.
    const updatedAtNs = i < p.messages / 10 ? null : createdAtNs + BigInt(rng.int(0, 90_000)) * 1_000_000n;
    const base = { id: uuid(rng), sessionId: session.id, taskId: session.taskId, turnId, createdAtNs, updatedAtNs };

    if (i === nextSubagentAt && subagentIndex < p.subagentMessages) {
      subagentIndex++;
      const slot = p.messages / p.subagentMessages;
      nextSubagentAt = Math.floor((subagentIndex + rng.next()) * slot);
      yield { message: { ...base, authorType: 'agent', type: 'tool_call', content: slice(30, 120), metadata: subagentMetadata(rng, slice) } };
      continue;
    }
    const roll = rng.next();
    let message: HostMessage;
    if (roll < 0.12) {
      message = { ...base, authorType: 'user', type: 'message', content: slice(80, 1200), metadata: null };
    } else if (roll < 0.4) {
      message = {
        ...base,
        authorType: 'agent',
        type: 'message',
        content: slice(40, 1500),
        metadata: roll < 0.26 ? null : JSON.stringify({ model: rng.pick(MODELS) }),
      };
    } else {
      const kind = rng.pick(TOOL_KINDS);
      // One tool call in 5,000 merely mentions the kind in its output: a text prefilter alone
      // would take it for a subagent launch.
      const output = rng.next() < 0.0002 ? `grep: Kind: "subagent_task" ${slice(20, 200)}` : slice(0, 1150);
      const metadata = {
        tool_call_id: `toolu_01${rng.base62(22)}`,
        status: 'completed',
        title: kind,
        normalized: { kind, [kind]: { target: slice(10, 60), output } },
      };
      message = { ...base, authorType: 'agent', type: 'tool_call', content: slice(20, 100), metadata: JSON.stringify(metadata) };
    }
    // Legacy rows: metadata the host wrote as '', 'null' or truncated JSON (1 in 2,000 each).
    const legacy = rng.next();
    if (legacy < 0.0015) message.metadata = legacy < 0.0005 ? '' : legacy < 0.001 ? 'null' : '{broken';
    yield { message };
  }
}

function subagentMetadata(rng: SeededRandom, slice: (min: number, max: number) => string): string {
  const roll = rng.next();
  const base = {
    description: slice(20, 80),
    prompt: slice(200, 2_000),
    subagent_type: rng.pick(['code-reviewer', 'security-reviewer', 'general-purpose', 'Explore']),
  };
  const [toolStatus, payload] =
    roll < 0.75
      ? [
          'completed',
          { ...base, status: 'async_launched', agent_id: `agent_${rng.hex(12)}`, model: rng.pick(MODELS), is_async: true, total_tokens: 0, duration_ms: 0 },
        ]
      : roll < 0.975
        ? [
            'completed',
            {
              ...base,
              status: 'completed',
              agent_id: `agent_${rng.hex(12)}`,
              model: rng.pick(MODELS),
              total_tokens: rng.int(5_000, 275_717),
              tool_use_count: rng.int(1, 60),
              duration_ms: rng.int(5_000, 900_000),
              result_text: slice(100, 3_000),
            },
          ]
        : roll < 0.995
          ? ['in_progress', { ...base, status: 'started', child_session_id: `ses_${rng.base62(24)}` }]
          : ['pending', base];
  return JSON.stringify({
    tool_call_id: `toolu_01${rng.base62(22)}`,
    status: toolStatus,
    title: 'Task',
    normalized: { kind: 'subagent_task', subagent_task: payload },
  });
}

// ---------------------------------------------------------------- progress

/** A one-line progress bar on stderr (a line per 10% when stderr is not a terminal). */
export function progressBar(label: string, total: number): { update(done: number): void; finish(note?: string): void } {
  const started = Date.now();
  let lastDecile = -1;
  let lastDraw = 0;
  const line = (done: number) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${secs} s`;
  };
  return {
    update(done) {
      if (process.stderr.isTTY) {
        if (Date.now() - lastDraw < 200) return;
        lastDraw = Date.now();
        process.stderr.write(`\r${line(done)}`);
      } else {
        const decile = Math.floor((done / total) * 10);
        if (decile !== lastDecile && decile < 10) {
          lastDecile = decile;
          process.stderr.write(`${line(done)}\n`);
        }
      }
    },
    finish(note = '') {
      process.stderr.write(`${process.stderr.isTTY ? '\r' : ''}${line(total)}${note ? ` ${note}` : ''}\n`);
    },
  };
}

// ---------------------------------------------------------------- writers

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
