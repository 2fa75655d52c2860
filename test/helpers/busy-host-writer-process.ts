// A busy host in a process of its own (issue 34): while the parent runs runMigrations(), it
// writes every `periodMs` on its own connection, as a host does — inserting a session with a
// few messages, editing an old message, deleting a session (its messages go by the host's
// ON DELETE CASCADE) — and times each write. A separate process because a SQLite busy wait
// is synchronous, and so that the PostgreSQL writes are a different backend for certain.
// Protocol over IPC: the parent sends a Job; the child replies 'ready'; 'start' begins the
// loop; 'stop' ends it, and the child replies with a Report and exits.
// The writes never create or change a qualifying message: the rows the backfill must write
// are then known exactly (the seeded qualifying messages of the sessions that survive).
import Database from 'better-sqlite3';
import { clientFor } from '../../scripts/lib/postgres-database.js';

interface Job {
  dialect: 'sqlite' | 'postgres';
  location: string;
  /** Seeded session ids the writer deletes, in this order. */
  deletable: string[];
  /** Seeded message ids it edits (never a subagent message), round robin. */
  editable: string[];
  periodMs: number;
}

export interface BusyHostReport {
  /** Writes per kind that committed. */
  inserts: number;
  edits: number;
  deletes: number;
  /** The sessions deleted, with the instant (ms since epoch) each delete committed. */
  deleted: { id: string; at: number }[];
  /** The longest single write, from its start to its commit (ms). */
  maxWaitMs: number;
  errors: string[];
}

type Exec = (sql: string, params: unknown[]) => Promise<void>;

const send = (message: unknown) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));

async function connect(job: Job): Promise<{ tx: (statements: [string, unknown[]][]) => Promise<void>; close: () => Promise<void> }> {
  if (job.dialect === 'sqlite') {
    const db = new Database(job.location, { timeout: 60_000 });
    db.pragma('foreign_keys = ON');
    return {
      tx: async (statements) => {
        db.transaction(() => {
          for (const [sql, params] of statements) {
            db.prepare(sql.replace(/\$(\d+)/g, '@p$1')).run(Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v])));
          }
        }).immediate();
      },
      close: async () => void db.close(),
    };
  }
  const client = clientFor({ connectionString: job.location });
  await client.connect();
  const exec: Exec = async (sql, params) => void (await client.query(sql, params));
  return {
    tx: async (statements) => {
      await exec('BEGIN', []);
      try {
        for (const [sql, params] of statements) await exec(sql, params);
        await exec('COMMIT', []);
      } catch (err) {
        await exec('ROLLBACK', []).catch(() => undefined);
        throw err;
      }
    },
    close: () => client.end(),
  };
}

process.once('message', async (job: Job) => {
  const conn = await connect(job);
  const report: BusyHostReport = { inserts: 0, edits: 0, deletes: 0, deleted: [], maxWaitMs: 0, errors: [] };
  let running = false;
  let done: Promise<void> = Promise.resolve();
  const ts = job.dialect === 'sqlite' ? (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '+00:00') : (d: Date) => d.toISOString().replace('Z', '');

  async function loop(): Promise<void> {
    let n = 0;
    while (running) {
      const kind = n % 3;
      const started = performance.now();
      const now = ts(new Date());
      try {
        if (kind === 0) {
          const s = `h${String(n).padStart(7, '0')}`;
          await conn.tx([
            ['INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ($1, $2, $3, $3)', [s, `task-${s}`, now]],
            ...[0, 1, 2].map((k): [string, unknown[]] => [
              'INSERT INTO task_session_messages (id, task_session_id, task_id, content, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
              [`${s}-${k}`, s, `task-${s}`, `host message ${k}`, '{"tool_call_id":"y","normalized":{"kind":"read"}}', now],
            ]),
            // An upsert of an existing session, as a host bumps updated_at on activity.
            ['UPDATE task_sessions SET updated_at = $1 WHERE id = $2', [now, job.deletable[job.deletable.length - 1 - (n % job.deletable.length)]]],
          ]);
          report.inserts++;
        } else if (kind === 1) {
          const id = job.editable[n % job.editable.length];
          await conn.tx([['UPDATE task_session_messages SET content = $1, updated_at = $2 WHERE id = $3', [`edited ${n}`, now, id]]]);
          report.edits++;
        } else if (report.deletes < job.deletable.length) {
          const id = job.deletable[report.deletes];
          await conn.tx([['DELETE FROM task_sessions WHERE id = $1', [id]]]);
          report.deleted.push({ id, at: Date.now() });
          report.deletes++;
        }
      } catch (err) {
        report.errors.push(String((err as Error).message ?? err));
      }
      report.maxWaitMs = Math.max(report.maxWaitMs, performance.now() - started);
      n++;
      await new Promise((resolve) => setTimeout(resolve, job.periodMs));
    }
  }

  process.on('message', async (command: string) => {
    if (command === 'start') {
      running = true;
      done = loop();
      await send('started');
    } else if (command === 'stop') {
      running = false;
      await done;
      await conn.close();
      await send(report);
      process.disconnect();
    }
  });
  await send('ready');
});
