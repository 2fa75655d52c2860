// A host process booting the upgrade, for the SIGKILL-resume test (issue 32 item 2): it runs
// runMigrations() on its own connection with the chunk size it is given, prints one line per
// committed chunk ("chunk <n>") and finally "report <MigrationReport as JSON>". With
// `slowRowMs`, every backfilled row takes that long to insert (a trigger on this connection),
// so a chunk's transaction is open most of the time and a kill lands inside one.
// argv: dialect, location, JSON options { maxSessions, slowRowMs, pauseMs, walk?, maxWindowMs? }.
import Database from 'better-sqlite3';
import { poolFor } from '../../scripts/lib/postgres-database.js';
import { createPostgresStore, createSqliteStore, type SubagentContextStore } from '../../src/index.js';

const [dialect, location, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson) as { maxSessions: number; slowRowMs: number; pauseMs: number; walk?: 'sessions' | 'windows'; maxWindowMs?: number };
const logger = { warn: (fields: unknown, msg: string) => process.stderr.write(`${msg} ${JSON.stringify(fields)}\n`) };

let store: SubagentContextStore;
let close: () => Promise<void>;
if (dialect === 'sqlite') {
  const db = new Database(location);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.function('slow_row', () => {
    const until = Date.now() + options.slowRowMs;
    while (Date.now() < until);
    return null;
  });
  // TEMP: the trigger exists on this connection only, as the function does.
  db.exec(`CREATE TEMP TRIGGER slow_backfill AFTER INSERT ON main.task_session_subagents BEGIN SELECT slow_row(); END`);
  store = createSqliteStore(db, { logger });
  close = async () => void db.close();
} else {
  const pool = poolFor({ connectionString: location, max: 2 });
  store = createPostgresStore(pool, { logger });
  close = () => pool.end();
}

let chunks = 0;
const report = await store.runMigrations({
  backfillChunk: { maxSessions: options.maxSessions, pauseMs: options.pauseMs, walk: options.walk, maxWindowMs: options.maxWindowMs },
  onBackfillProgress: () => process.stdout.write(`chunk ${++chunks}\n`),
});
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await close();
