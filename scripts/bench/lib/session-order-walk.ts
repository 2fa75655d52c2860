// Issue 32, a PROTOTYPE for measurement only: the package's PostgreSQL session walk with two
// things changed, each switchable, to tell which of them the 1.2x target needs (BENCHMARKS.md,
// "Issue 32, the walk's reads"):
//   - the ORDER of the sessions: `created_at, id` instead of the key. Sessions created close in
//     time hold messages that lie close on disk, so a chunk reads a contiguous part of the table
//     once; in key order (UUIDs) each chunk's sessions are spread over the whole table;
//   - the SCAN: a bitmap heap scan per chunk (index and sequential scans off for the chunk's
//     statement only), which reads the chunk's pages in the order they lie on disk, where the
//     planner's index scan fetches each message through the index.
// Each chunk is one transaction: its sessions locked FOR KEY SHARE as the package locks them,
// then the package's own chunk statement (generated/postgres/backfill_subagent_contexts), which
// selects its messages by the session set alone (sessions in created_at order are no key range).
// Chunks are sized as the package sizes them (./../../../src/migrations/backfill-pacing.ts).
// What it leaves out, and a build needs: the order is read once into memory here (8,334
// sessions); the package would keep it in a staging table (task_sessions has no index on
// created_at), written in key ranges and read as a queue; the migration lock, kandev_meta's
// cursor and keys, and the statement-timeout retry.
import type { PoolClient, Client } from 'pg';
import { backfillSubagentContexts } from '../../../generated/postgres/index.js';
import { nextChunkSize } from '../../../src/migrations/backfill-pacing.js';
import { FIRST_CHUNK_SESSIONS, MAX_CHUNK_SESSIONS } from '../../../src/migrations/backfill-step.js';
import { timedTransaction } from './timed-transaction.js';

/** The package's chunk statement selects its messages by the session set alone, as this walk needs. */
const SESSION_SET = '   WHERE m.task_session_id = ANY($1::text[])\n';

export interface SessionOrderOptions {
  order: 'created_at' | 'key';
  bitmap: boolean;
  /** Lock every session of the chunk FOR KEY SHARE first, as the package does (default); false: none, to time the locks. */
  lock?: boolean;
  targetMs?: number;
}

/** The chunk statement over a set of sessions; fails by name if the generated statement changed shape. */
function sessionSetStatement(): string {
  const text = backfillSubagentContexts.text;
  if (!text.includes(SESSION_SET))
    throw new Error('session-order-walk: the generated backfill statement no longer selects its messages by the session set alone');
  return text;
}

/** Walks every session in the order asked, each chunk one transaction. */
export async function sessionOrderWalk(
  client: Client | PoolClient,
  options: SessionOrderOptions,
): Promise<{ chunks: number; rows: number; longestMs: number }> {
  const statement = sessionSetStatement();
  const orderBy = options.order === 'created_at' ? 'created_at, id' : 'id';
  const ids = (await client.query<{ id: string }>(`SELECT id FROM task_sessions ORDER BY ${orderBy}`)).rows.map((r) => r.id);
  const pacing = { targetMs: options.targetMs ?? 500 };
  const walk = { chunks: 0, rows: 0, longestMs: 0 };
  let limit = FIRST_CHUNK_SESSIONS;
  for (let at = 0; at < ids.length;) {
    const chunk = ids.slice(at, at + limit);
    const elapsed = await timedTransaction(client, async () => {
      await client.query("SET LOCAL work_mem = '64kB'"); // as the package's chunks
      const locked =
        options.lock === false
          ? { rows: chunk.map((id) => ({ id })) }
          : await client.query<{ id: string }>('SELECT id FROM task_sessions WHERE id = ANY($1::text[]) FOR KEY SHARE', [chunk]);
      if (options.bitmap) {
        await client.query('SET LOCAL enable_indexscan = off');
        await client.query('SET LOCAL enable_seqscan = off');
      }
      walk.rows += (await client.query(statement, [locked.rows.map((r) => r.id)])).rowCount ?? 0;
    });
    walk.chunks++;
    walk.longestMs = Math.max(walk.longestMs, elapsed);
    at += chunk.length;
    limit = nextChunkSize(limit, elapsed, pacing, MAX_CHUNK_SESSIONS);
  }
  return walk;
}
