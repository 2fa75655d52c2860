// A separate process running runMigrations() on a SQLite file (test/migrations-concurrency):
// it opens its own connection as a host would, says "ready", waits for "go" on stdin so all
// children start at once, then prints its MigrationReport as JSON.
import Database from 'better-sqlite3';
import { createInterface } from 'node:readline';
import { createSqliteStore } from '../../src/index.js';

const file = process.argv[2];
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
const report = await store.runMigrations();
process.stdout.write(`${JSON.stringify(report)}\n`);
db.close();
