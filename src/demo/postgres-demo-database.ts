// The demo on PostgreSQL (`--postgres URL`): the same history, stream and report as on
// SQLite. It needs a database without the host tables — it never writes demo rows next to a
// real host's — and leaves its tables behind for the user to query.
import pg from 'pg';
import {
  demoActivationKeys,
  demoContextsPerCard,
  demoExistingTables,
  demoFanOutHistogram,
  demoInsertMessage,
  demoInsertSession,
  demoProvenanceSplit,
  demoSettledSubagentTokens,
  demoUpdateMessageMetadata,
} from '../../generated/postgres/demo/index.js';
import { hostSchema } from '../../generated/postgres/index.js';
import { createPostgresStore } from '../index.js';
import { formatMicros } from '../instant.js';
import { withTransaction } from '../postgres/transaction.js';
import { DemoRefusal, printableStatement, shellQuoted, toNullableNumber, toNumber, type DemoDatabase, demoMessageParams } from './demo-database.js';
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

/** A pgtyped statement's SQL text (the IR is private in the runtime's types, public at run time). */
function statementOf(query: unknown): string | null {
  const ir = (query as { queryIR?: { statement?: unknown } }).queryIR;
  return typeof ir?.statement === 'string' ? ir.statement : null;
}

export async function openPostgresDemoDatabase(url: string): Promise<DemoDatabase> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {}); // an idle client's socket error surfaces on the next query instead (as in src/cli/database.ts)
  try {
    const tables = await demoExistingTables.run(undefined, pool);
    if (tables.length > 0) {
      throw new DemoRefusal(`${redacted(url)} already holds ${tables.map((t) => t.name).join(', ')}; the demo builds its own history — point --postgres at an empty database (e.g. createdb subagent_context_demo)`);
    }
  } catch (err) {
    await pool.end();
    throw err;
  }
  const messageParams = (m: HostMessage) => demoMessageParams(m, formatMicros);
  return {
    dialect: 'postgres',
    where: `PostgreSQL ${redacted(url)}`,
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
    async readFigures() {
      const [fanOut, cards, settled, provenance, keys] = await Promise.all([
        demoFanOutHistogram.run(undefined, pool),
        demoContextsPerCard.run(undefined, pool),
        demoSettledSubagentTokens.run(undefined, pool),
        demoProvenanceSplit.run(undefined, pool),
        demoActivationKeys.run(undefined, pool),
      ]);
      return {
        fanOut: fanOut.map((r) => ({ fanOut: toNumber(r.fan_out), turns: toNumber(r.turns), backfilledTurns: toNumber(r.backfilled_turns) })),
        cards: cards.map((r) => ({ taskId: r.task_id, sessions: toNumber(r.sessions), subagentContexts: toNumber(r.subagent_contexts) })),
        settled: settled.map((r) => ({ agentStatus: r.agent_status, totalTokens: toNullableNumber(r.total_tokens), source: r.source })),
        provenance: provenance.map((r) => ({ source: r.source, rows: toNumber(r.rows), realExecution: toNumber(r.real_execution), settled: toNumber(r.settled), measured: toNumber(r.measured) })),
        keys: keys.map((r) => ({ key: r.key, value: r.value })),
      };
    },
    queryExamples() {
      return [demoFanOutHistogram, demoProvenanceSplit, demoActivationKeys].flatMap((q) => {
        const sql = statementOf(q);
        return sql ? [`psql ${shellQuoted(redacted(url))} -c ${shellQuoted(printableStatement(sql))}`] : [];
      });
    },
    async close() {
      await pool.end();
    },
  };
}
