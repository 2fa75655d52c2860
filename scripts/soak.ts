// `npm run soak [-- --frames N --every N --dialect sqlite|postgres]`: a bounded soak of the
// live writer (issue 7). Plays a host: for every new subagent it writes the message row the
// host's message writer would, then streams several frames per subagent through recordFrame
// (mixed keys, repeats, late and out-of-order frames). Every `--every` frames it runs
// checkHealth() and requires shortfall 0 (a healthy writer must never read as failing), and
// samples memory. Prints the figures and exits non-zero on any failure.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { poolFor } from './lib/postgres-database.js';
import * as sqliteGenerated from '../generated/sqlite/index.js';
import * as postgresGenerated from '../generated/postgres/index.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore, type SubagentFrame } from '../src/index.js';
import { formatMicros } from '../src/instant.js';
import { startEmbeddedPostgres } from './lib/embedded-postgres.js';
import { DIALECTS, dialectNamed, type ByDialect, type DialectName } from '../src/dialect.js';

const { values } = parseArgs({
  options: {
    frames: { type: 'string', default: '200000' },
    every: { type: 'string', default: '10000' },
    dialect: { type: 'string', multiple: true },
  },
});
const FRAMES = Number(values.frames);
const EVERY = Number(values.every);
const dialects = (values.dialect?.length ? values.dialect : [...DIALECTS]).map(
  (d) => dialectNamed(d) ?? usage(`--dialect ${d}: not one of ${DIALECTS.join(', ')}`),
);

function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

interface Host {
  store: SubagentContextStore;
  writeMessage(id: string, sessionId: string, toolCallId: string, createdAtNs: bigint): Promise<void>;
  close(): Promise<void>;
}

const INSERT_MESSAGE = `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type, metadata, created_at)
VALUES ($1, $2, $3, $4, 'agent', '', 'tool_call', $5, $6)`;
const metadata = (toolCallId: string) =>
  JSON.stringify({ tool_call_id: toolCallId, status: 'in_progress', normalized: { kind: 'subagent_task', subagent_task: { status: 'async_launched' } } });

let now = 1_790_000_000_000_000_000n;
const clock = () => (now += 50_000n); // 50 µs per read: the soak spans a realistic window

async function sqliteHost(dir: string): Promise<Host> {
  const db = new Database(join(dir, 'soak.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  for (const s of sqliteGenerated.hostSchema) db.exec(s.sql);
  const session = db.prepare(
    "INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES (?, ?, '2026-09-01 00:00:00+00:00', '2026-09-01 00:00:00+00:00')",
  );
  for (let s = 0; s < 50; s++) session.run(`s${s}`, `task-${s}`);
  const insert = db.prepare(INSERT_MESSAGE.replace(/\$(\d)/g, '?'));
  const store = createSqliteStore(db, { clock });
  return {
    store,
    writeMessage: async (id, sid, tcid, at) => void insert.run(id, sid, `task-${sid.slice(1)}`, 'turn', metadata(tcid), `${formatMicros(at)}+00:00`),
    close: async () => void db.close(),
  };
}

async function postgresHost(url: string): Promise<Host> {
  const pool = poolFor({ connectionString: url, max: 4 });
  for (const s of postgresGenerated.hostSchema) await pool.query(s.sql);
  for (let s = 0; s < 50; s++)
    await pool.query('INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ($1, $2, now(), now())', [`s${s}`, `task-${s}`]);
  const store = createPostgresStore(pool, { clock });
  return {
    store,
    writeMessage: async (id, sid, tcid, at) =>
      void (await pool.query({
        name: 'soak_message',
        text: INSERT_MESSAGE,
        values: [id, sid, `task-${sid.slice(1)}`, 'turn', metadata(tcid), formatMicros(at)],
      })),
    close: () => pool.end(),
  };
}

async function soak(dialect: DialectName, host: Host): Promise<boolean> {
  const migrated = await host.store.runMigrations();
  if (!migrated.ok) throw new Error(`migrations failed: ${JSON.stringify(migrated.steps)}`);
  let nextSubagent = 0;
  const open: { sessionId: string; toolCallId: string; exec: string; frames: number }[] = [];
  const samples: { frames: number; heapMb: number; rssMb: number }[] = [];
  let ok = true;
  const started = performance.now();
  for (let i = 1; i <= FRAMES; i++) {
    // Keep ~64 subagents in flight. A new subagent is recognised on a frame: the host writes
    // its message row and records that frame together, so the first frame goes to the new
    // subagent; later frames go to mixed, out-of-order keys among those in flight.
    let at: number;
    if (open.length < 64 || i % 5 === 0) {
      const n = nextSubagent++;
      const sub = { sessionId: `s${n % 50}`, toolCallId: `toolu_${n}`, exec: `exec-${n % 3}`, frames: 0 };
      await host.writeMessage(`m${n}`, sub.sessionId, sub.toolCallId, clock());
      at = open.push(sub) - 1;
    } else {
      at = (i * 2654435761) % open.length;
    }
    const sub = open[at];
    sub.frames++;
    const last = sub.frames >= 4;
    const frame: SubagentFrame = {
      sessionId: sub.sessionId,
      taskId: `task-${sub.sessionId.slice(1)}`,
      turnId: 'turn',
      executionId: sub.exec,
      toolCallId: sub.toolCallId,
      toolStatus: last ? 'completed' : 'in_progress',
      payload: { status: last ? 'completed' : 'started', model: 'claude-opus-5', total_tokens: last ? 1000 + i : 0, is_async: false },
    };
    await host.store.recordFrame(frame);
    if (last) open.splice(at, 1);
    if (i % EVERY === 0) {
      const health = await host.store.checkHealth();
      (globalThis as { gc?: () => void }).gc?.(); // npm run soak exposes gc: sample live memory, not garbage
      const mem = process.memoryUsage();
      samples.push({ frames: i, heapMb: mem.heapUsed / 2 ** 20, rssMb: mem.rss / 2 ** 20 });
      if (health.shortfall !== 0 || health.verdict !== 'healthy') {
        ok = false;
        console.error(`${dialect}: at ${i} frames shortfall=${health.shortfall} verdict=${health.verdict}`);
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const c = host.store.counters();
  if (c.attempted !== FRAMES || c.persisted !== FRAMES) ok = false;
  const warm = samples.slice(Math.floor(samples.length / 4));
  const heapGrowth = warm.length > 1 ? warm[warm.length - 1].heapMb - warm[0].heapMb : 0;
  const rssGrowth = warm.length > 1 ? warm[warm.length - 1].rssMb - warm[0].rssMb : 0;
  console.log(
    `${dialect}: ${FRAMES} frames over ${nextSubagent} subagents in ${seconds.toFixed(1)} s (${Math.round(FRAMES / seconds)} frames/s), ` +
      `${samples.length} health checks all shortfall 0: ${ok}; persisted ${c.persisted}/${c.attempted}; ` +
      `heap ${warm[0]?.heapMb.toFixed(1)} -> ${warm.at(-1)?.heapMb.toFixed(1)} MB (${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)}), ` +
      `rss ${warm[0]?.rssMb.toFixed(0)} -> ${warm.at(-1)?.rssMb.toFixed(0)} MB (${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(0)}) after warm-up`,
  );
  return ok && Math.abs(heapGrowth) < 32;
}

/** A host on a fresh database of each dialect, and how to be rid of both. */
const FRESH_HOST: ByDialect<() => Promise<{ host: Host; dispose(): Promise<void> }>> = {
  async sqlite() {
    const dir = mkdtempSync(join(tmpdir(), 'subagent-context-soak-'));
    const host = await sqliteHost(dir);
    const dispose = async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { host, dispose };
  },
  async postgres() {
    const server = await startEmbeddedPostgres({ fsync: false });
    const host = await postgresHost(server.url);
    const dispose = async () => {
      await host.close();
      await server.stop();
    };
    return { host, dispose };
  },
};

let allOk = true;
for (const dialect of dialects) {
  const { host, dispose } = await FRESH_HOST[dialect]();
  try {
    allOk = (await soak(dialect, host)) && allOk;
  } finally {
    await dispose();
  }
}
process.exit(allOk ? 0 : 1);
