// Child process: the backfill's memory on hostile history (issue 16 item 11, issue 20): a store
// of a few ordinary subagent messages and ONE whose metadata is a 50 MB document (the bulk in
// one field that the backfill copies into the row, description, or in one it never reads,
// result_text). Prints one JSON line: this process's peak RSS over runMigrations() alone
// (Linux VmHWM reset before it), and on PostgreSQL the server backend's.
//   --dialect sqlite --location FILE | --dialect postgres --location SERVER_URL
//   --field description|result_text
//   --phase prepare|measure   prepare writes the store and exits; measure runs the backfill in a
//                             fresh process, so its baseline holds none of the writer's buffers
import Database from 'better-sqlite3';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { hostSchema as postgresHostSchema } from '../../generated/postgres/index.js';
import { hostSchema as sqliteHostSchema } from '../../generated/sqlite/index.js';
import { createPostgresStore, createSqliteStore, type MigrationReport } from '../../src/index.js';
import { createDatabase, databaseUrl, dropDatabase, poolFor } from '../lib/postgres-database.js';
import { DIALECTS, dialectNamed, type ByDialect, type DialectName } from '../../src/dialect.js';

export interface HugeDocumentMeasurement {
  dialect: DialectName;
  field: string;
  documentBytes: number;
  ok: boolean;
  rows: number;
  ms: number;
  baselineRssKb: number;
  peakRssKb: number;
  serverPeakRssKb?: number;
}

const DOCUMENT_MB = 50;
const ORDINARY = 20;
const DATABASE = 'bench_huge_document';
const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);

function metadata(i: number, field: string | null): string {
  const task: Record<string, unknown> = { description: `task ${i}`, subagent_type: 'general-purpose', status: 'completed', total_tokens: 1000 + i };
  if (field) task[field] = 'x'.repeat(DOCUMENT_MB * 1024 * 1024);
  return JSON.stringify({ tool_call_id: `toolu_${i}`, status: 'completed', normalized: { kind: 'subagent_task', subagent_task: task } });
}

const rows = (field: string) =>
  Array.from({ length: ORDINARY + 1 }, (_, i) => ({
    id: `msg_${i}`,
    metadata: metadata(i, i === ORDINARY ? field : null),
    createdAt: `2026-08-12 10:00:${String(i).padStart(2, '0')}`,
  }));

const SESSION = `INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('ses_1', 'task_1', '2026-08-12 10:00:00', '2026-08-12 10:00:00')`;

/** Writes the store: the host tables, one session and its messages (`field` carrying the document). */
const PREPARE: ByDialect<(location: string, field: string) => Promise<void>> = {
  async sqlite(location, field) {
    for (const f of [location, `${location}-wal`, `${location}-shm`]) rmSync(f, { force: true });
    const db = new Database(location);
    db.pragma('journal_mode = WAL');
    for (const s of sqliteHostSchema) db.exec(s.sql);
    db.prepare(SESSION).run();
    const insert = db.prepare(`INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES (?, 'ses_1', 'task_1', ?, ?)`);
    for (const r of rows(field)) insert.run(r.id, r.metadata, r.createdAt);
    db.close();
  },
  async postgres(location, field) {
    const database = await createDatabase(location, DATABASE, { replaceExisting: true });
    const pool = database.pool({ max: 1 });
    for (const s of postgresHostSchema) await pool.query(s.sql);
    await pool.query(SESSION);
    for (const r of rows(field)) {
      await pool.query(`INSERT INTO task_session_messages (id, task_session_id, task_id, metadata, created_at) VALUES ($1, 'ses_1', 'task_1', $2, $3)`, [
        r.id,
        r.metadata,
        r.createdAt,
      ]);
    }
    await pool.end();
  },
};

/** The prepared store, opened for the measurement. */
interface MeasuredStore {
  documentBytes: number;
  run(): Promise<MigrationReport>;
  count(): Promise<number>;
  /** The server backends' peak RSS, where there is a server. */
  serverPeak(): Promise<number | undefined>;
  close(): Promise<void>;
}

const noop = { warn: () => {} };

const OPEN: ByDialect<(location: string) => Promise<MeasuredStore>> = {
  async sqlite(location) {
    const db = new Database(location);
    return {
      documentBytes: (db.prepare('SELECT max(length(CAST(metadata AS BLOB))) AS n FROM task_session_messages').get() as { n: number }).n,
      run: () => createSqliteStore(db, { logger: noop }).runMigrations(),
      count: async () => (db.prepare('SELECT COUNT(*) AS n FROM task_session_subagents').get() as { n: number }).n,
      serverPeak: async () => undefined,
      async close() {
        db.close();
        for (const f of [location, `${location}-wal`, `${location}-shm`]) rmSync(f, { force: true });
      },
    };
  },
  async postgres(location) {
    // A fresh process and pool: the backends measured are the store's alone (writing the
    // document cost the server memory too, in the prepare process).
    const pool = poolFor({ connectionString: databaseUrl(location, DATABASE), max: 2 });
    const store = createPostgresStore(pool, { logger: noop });
    return {
      documentBytes: Number((await pool.query('SELECT max(octet_length(metadata)) AS n FROM task_session_messages')).rows[0].n),
      run: () => store.runMigrations(),
      count: async () => Number((await pool.query('SELECT COUNT(*) AS n FROM task_session_subagents')).rows[0].n),
      async serverPeak() {
        // Client backends only, as in ./backend-memory.ts (an autovacuum worker is not the package's).
        const pids = (await pool.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'")).rows.map(
          (r: { pid: number }) => r.pid,
        );
        const peaks = pids.flatMap((pid) => {
          try {
            return [Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)];
          } catch {
            return [];
          }
        });
        return peaks.length ? Math.max(...peaks) : undefined;
      },
      async close() {
        await pool.end();
        await dropDatabase(location, DATABASE);
      },
    };
  },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dialect: { type: 'string' },
      location: { type: 'string' },
      field: { type: 'string', default: 'description' },
      phase: { type: 'string', default: 'measure' },
    },
  });
  const dialect = dialectNamed(values.dialect);
  if (!dialect) throw new Error(`--dialect ${values.dialect}: not one of ${DIALECTS.join(', ')}`);
  const location = values.location!;
  const field = values.field!;
  if (values.phase === 'prepare') return PREPARE[dialect](location, field);
  const out: HugeDocumentMeasurement = { dialect, field, documentBytes: 0, ok: false, rows: 0, ms: 0, baselineRssKb: 0, peakRssKb: 0 };
  const { documentBytes, run, count, serverPeak, close } = await OPEN[dialect](location);
  out.documentBytes = documentBytes;
  try {
    out.baselineRssKb = status('VmRSS');
    writeFileSync('/proc/self/clear_refs', '5');
    const start = process.hrtime.bigint();
    const report = await run();
    out.ms = Number(process.hrtime.bigint() - start) / 1e6;
    out.peakRssKb = status('VmHWM');
    out.serverPeakRssKb = await serverPeak();
    out.ok = report.ok;
    out.rows = await count();
  } finally {
    await close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`huge-document-worker: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
