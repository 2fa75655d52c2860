// The demo on the embedded default: a SQLite file, left behind for the user to query.
// A file the demo made is marked with PRAGMA application_id, so a re-run replaces its own
// earlier file; any other database that holds anything is refused (sqlite-demo-file.ts).
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { demoInsertMessage, demoInsertSession, demoUpdateMessageMetadata } from '../../generated/sqlite/demo/index.js';
import { createSqliteStore } from '../index.js';
import { withImmediateTransaction } from '../sqlite/transaction.js';
import { shellQuoted, type DemoDatabase, demoMessageParams } from './demo-database.js';
import { DEMO_APPLICATION_ID, inspectDemoFile } from './sqlite-demo-file.js';
import { goDriverTimestamp, type HostMessage } from './host-rows.js';

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}

/** Opens FILE for the demo: creates it, uses an empty one in place, or replaces the demo's own; refuses anything else (sqlite-demo-file.ts). */
function openDemoFile(file: string): Database.Database {
  if (inspectDemoFile(file) === 'demo') removeDatabaseFiles(file);
  const db = new Database(file);
  db.pragma(`application_id = ${DEMO_APPLICATION_ID}`);
  db.pragma('journal_mode = WAL'); // as a host would run it
  db.pragma('foreign_keys = ON');
  return db;
}

export function openSqliteDemoDatabase(path: string): DemoDatabase {
  const file = resolve(path);
  const db = openDemoFile(file);
  const messageParams = (m: HostMessage) => demoMessageParams(m, goDriverTimestamp);
  return {
    where: `SQLite file ${file}`,
    cliOption: `--sqlite ${shellQuoted(file)}`,
    clientCommand: `sqlite3 ${shellQuoted(file)}`,
    store: (options) => createSqliteStore(db, options),
    createHostTables: () => createSqliteStore(db).createHostTables(),
    async insertHistory(sessions, messages) {
      withImmediateTransaction(db, () => {
        for (const s of sessions) {
          const at = goDriverTimestamp(s.createdAtNs);
          demoInsertSession.run({ id: s.id, taskId: s.taskId, state: 'COMPLETED', createdAt: at, updatedAt: at }, db);
        }
        for (const m of messages) demoInsertMessage.run(messageParams(m), db);
      });
    },
    async insertMessage(message) {
      demoInsertMessage.run(messageParams(message), db);
    },
    async updateMessageMetadata(id, metadata, updatedAtNs) {
      demoUpdateMessageMetadata.run({ id, metadata, updatedAt: goDriverTimestamp(updatedAtNs) }, db);
    },
    async close() {
      db.close();
    },
  };
}
