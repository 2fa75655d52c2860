// The demo on PostgreSQL (`--postgres URL`): the same history, stream and report as on
// SQLite. It needs an EMPTY database (no table, view, sequence or function anyone made) — it
// never writes demo rows next to a real host's, or anyone's — and leaves its tables behind.
import { demoExistingObjects, demoInsertMessage, demoInsertSession, demoUpdateMessageMetadata } from '../../generated/postgres/demo/index.js';
import { maskConnectionString } from '../connection-secrets.js';
import { createPostgresStore } from '../index.js';
import { formatMicros } from '../instant.js';
import { ownPool } from '../postgres/own-pool.js';
import { withTransaction } from '../postgres/transaction.js';
import { DemoRefusal, shellQuoted, type DemoDatabase, demoMessageParams } from './demo-database.js';
import type { HostMessage } from './host-rows.js';

export async function openPostgresDemoDatabase(url: string): Promise<DemoDatabase> {
  const pool = ownPool(url, 'subagent-context-demo', 4);
  try {
    const objects = await demoExistingObjects.run(undefined, pool);
    if (objects.length > 0) {
      const shown = objects.slice(0, 5).map((o) => `${o.kind} ${o.name}`);
      const more = objects.length > shown.length ? ` and ${objects.length - shown.length} more` : '';
      throw new DemoRefusal(
        `${maskConnectionString(url)} is not empty (it holds ${shown.join(', ')}${more}); the demo never writes into a database it did not make — point --postgres at an empty database (e.g. createdb subagent_context_demo)`,
      );
    }
  } catch (err) {
    await pool.end();
    throw err;
  }
  const messageParams = (m: HostMessage) => demoMessageParams(m, formatMicros);
  return {
    examplesNote: '(the password is hidden above: substitute your own URL)',
    where: `PostgreSQL ${maskConnectionString(url)}`,
    cliOption: `--postgres ${shellQuoted(maskConnectionString(url))}`,
    clientCommand: `psql ${shellQuoted(maskConnectionString(url))}`,
    store: (options) => createPostgresStore(pool, options),
    createHostTables: () => createPostgresStore(pool).createHostTables(),
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
