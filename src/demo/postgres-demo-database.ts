// The demo on PostgreSQL (`--postgres URL`): the same history, stream and report as on
// SQLite. It needs a database without the host tables — it never writes demo rows next to a
// real host's — and leaves its tables behind for the user to query.
import pg from 'pg';
import { demoExistingTables, demoInsertMessage, demoInsertSession, demoUpdateMessageMetadata } from '../../generated/postgres/demo/index.js';
import { hostSchema } from '../../generated/postgres/index.js';
import { createPostgresStore } from '../index.js';
import { formatMicros } from '../instant.js';
import { withTransaction } from '../postgres/transaction.js';
import { DemoRefusal, shellQuoted, type DemoDatabase, demoMessageParams } from './demo-database.js';
import type { HostMessage } from './host-rows.js';

/** The URL without its password, for printing. */
function redacted(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the given PostgreSQL URL';
  }
}

export async function openPostgresDemoDatabase(url: string): Promise<DemoDatabase> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {}); // an idle client's socket error surfaces on the next query instead (as in src/cli/database.ts)
  try {
    const tables = await demoExistingTables.run(undefined, pool);
    if (tables.length > 0) {
      throw new DemoRefusal(
        `${redacted(url)} already holds ${tables.map((t) => t.name).join(', ')}; the demo builds its own history — point --postgres at an empty database (e.g. createdb subagent_context_demo)`,
      );
    }
  } catch (err) {
    await pool.end();
    throw err;
  }
  const messageParams = (m: HostMessage) => demoMessageParams(m, formatMicros);
  return {
    dialect: 'postgres',
    where: `PostgreSQL ${redacted(url)}`,
    cliOption: `--postgres ${shellQuoted(redacted(url))}`,
    clientCommand: `psql ${shellQuoted(redacted(url))}`,
    store: (options) => createPostgresStore(pool, options),
    async createHostTables() {
      for (const script of hostSchema) await pool.query(script.sql);
    },
    async insertHistory(sessions, messages) {
      await withTransaction(pool, async (client) => {
        for (const s of sessions) {
          const at = formatMicros(s.createdAtNs);
          await demoInsertSession.run({ id: s.id, taskId: s.taskId, state: 'COMPLETED', createdAt: at, updatedAt: at }, client);
        }
        for (const m of messages) await demoInsertMessage.run(messageParams(m), client);
      });
    },
    async insertMessage(message) {
      await demoInsertMessage.run(messageParams(message), pool);
    },
    async updateMessageMetadata(id, metadata, updatedAtNs) {
      await demoUpdateMessageMetadata.run({ id, metadata, updatedAt: formatMicros(updatedAtNs) }, pool);
    },
    async close() {
      await pool.end();
    },
  };
}
