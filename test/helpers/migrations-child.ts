// A separate process running runMigrations() on a SQLite file (test/migrations-concurrency):
// it opens its own connection as a host would, says "ready", waits for "go" on stdin so all
// children start at once, then prints its MigrationReport as JSON, with `walked`: the host
// sessions its backfill chunks walked. argv: file, optional MigrationOptions as JSON.
import Database from 'better-sqlite3';
import { createInterface } from 'node:readline';
import { createSqliteStore, type MigrationOptions } from '../../src/index.js';

const file = process.argv[2];
const options = process.argv[3] ? (JSON.parse(process.argv[3]) as MigrationOptions) : {};
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');
const store = createSqliteStore(db, { logger: { warn: (fields, msg) => process.stderr.write(`${msg} ${JSON.stringify(fields)}\n`) } });

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line.trim() === 'go') break;
}
lines.close();
let walked = 0;
const report = await store.runMigrations({ ...options, onBackfillProgress: (p) => void (walked = p.sessions) });
process.stdout.write(`${JSON.stringify({ ...report, walked })}\n`);
db.close();
