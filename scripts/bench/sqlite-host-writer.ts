// A SQLite host writer in a process of its own, for scale-measure-sqlite.ts: a better-sqlite3
// busy wait is synchronous, so the writer cannot share the migrating process. The same round as
// the PostgreSQL scale measure's writer, every 10 ms on its own connection (busy timeout 60 s,
// so a wait is measured, not failed): a new session with a message, an update of an old
// session's updated_at, the delete of its own session from two rounds before; each round timed.
// IPC: the child says 'ready' once its statements are prepared; the parent sends 'stop'; the child replies with its latencies' summary and exits, after
// removing the rows it created (the old sessions it touched keep their new updated_at).
import Database from 'better-sqlite3';

const db = new Database(process.argv[2], { timeout: 60_000, fileMustExist: true });
db.pragma('foreign_keys = ON');
const oldSessions = (db.prepare('SELECT id FROM task_sessions ORDER BY id LIMIT 100').all() as { id: string }[]).map((r) => r.id);
const insertSession = db.prepare(`INSERT INTO task_sessions (id, task_id, state, created_at, updated_at) VALUES (?, 'writer-task', 'RUNNING', ?, ?)`);
const insertMessage = db.prepare(
  `INSERT INTO task_session_messages (id, task_session_id, task_id, type, content, metadata, created_at) VALUES (?, ?, 'writer-task', 'message', 'hello', NULL, ?)`,
);
const touch = db.prepare('UPDATE task_sessions SET updated_at = ? WHERE id = ?');
const remove = db.prepare('DELETE FROM task_sessions WHERE id = ?');

const latencies: number[] = [];
let failures = 0;
let running = true;
process.on('message', () => (running = false));

async function main(): Promise<void> {
  await new Promise<void>((resolve) => process.send!('ready', () => resolve()));
  const created: string[] = [];
  for (let i = 0; running; i++) {
    const id = `writer-${i}`;
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '+00:00');
    const t0 = performance.now();
    try {
      insertSession.run(id, now, now);
      insertMessage.run(`${id}-m`, id, now);
      touch.run(now, oldSessions[i % oldSessions.length]);
      created.push(id);
      if (created.length > 2) remove.run(created.shift());
    } catch {
      failures++;
    }
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  db.prepare(`DELETE FROM task_sessions WHERE id LIKE 'writer-%'`).run();
  db.close();
  latencies.sort((a, b) => a - b);
  const report = { ops: latencies.length, worstMs: latencies.at(-1) ?? 0, p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0, failures };
  process.send!(report, () => process.exit(0));
}

void main();
