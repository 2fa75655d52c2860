// Issue 32, the PROTOTYPE of PostgreSQL's window walk, for measurement only, kept because the
// rounds in BENCHMARKS.md ("Issue 32, the walk's reads") cite it. The package's backfill now walks
// windows itself (src/migrations/backfill-windows.ts), with everything listed below as left out;
// this copy is not it and is not kept in step with it. The chunk statement
// is the package's own (generated/postgres/backfill_subagent_contexts.queries.ts) with its
// session set swapped for a created_at window, walked newest window first:
//   - windows, not counted chunks: (hi − w, hi], w doubled while a chunk takes under half the
//     time target and scaled down when one overran, as the package sizes its session chunks.
//     Finding each chunk's edge by counting messages (ORDER BY created_at OFFSET n) cost a
//     quarter of the walk;
//   - a bitmap heap scan per window (index and sequential scans off for the statement): the
//     window's pages are read once each, in the order they lie on disk, however many sessions
//     share them. The package's walk reads a page once per chunk holding one of its sessions;
//   - AC-21b's winner (newest created_at, then greatest id) without a staging table: the
//     statement ranks the candidates inside its window, and ON CONFLICT DO NOTHING keeps what
//     a newer window wrote first. Equal created_at values fall in one window.
// What it leaves out, and a real one needs: the migration lock and the sessions' key-share
// locks, the cursor in kandev_meta (resume), the activation keys, a fallback where the host has
// no index on created_at, windows bounded by the mark read before the first chunk,
// microsecond-exact edges (here epoch seconds as float8, the same value on both sides of an
// edge, so no message is read twice or skipped), edges that hold for a `timestamptz` column
// (these are UTC `timestamp` values: under another TimeZone they would shift), and a created_at
// before 1970.
import type { PoolClient, Client } from 'pg';
import { backfillSubagentContexts } from '../../../generated/postgres/index.js';
import { timedTransaction } from './timed-transaction.js';

const SESSION_RANGE = '   WHERE m.task_session_id = ANY($1::text[])\n';
const TIME_WINDOW = "   WHERE m.created_at > to_timestamp($1) AT TIME ZONE 'UTC' AND m.created_at <= to_timestamp($2) AT TIME ZONE 'UTC'\n";

/** The chunk statement over a created_at window; fails by name if the generated statement changed shape. */
function windowStatement(): string {
  const text = backfillSubagentContexts.text;
  if (!text.includes(SESSION_RANGE))
    throw new Error('window-walk: the generated backfill statement no longer has the session-set WHERE this prototype replaces');
  return text.replace(SESSION_RANGE, TIME_WINDOW);
}

export interface WindowWalk {
  chunks: number;
  rows: number;
  /** The longest chunk's transaction, ms. */
  longestMs: number;
}

/** Walks every message, newest window first, each window one transaction; `targetMs` per chunk. */
export async function windowWalk(client: Client | PoolClient, targetMs = 500): Promise<WindowWalk> {
  const statement = windowStatement();
  const ends = (
    await client.query<{ lo: number | null; hi: number | null }>(
      'SELECT extract(epoch FROM min(created_at))::float8 AS lo, extract(epoch FROM max(created_at))::float8 AS hi FROM task_session_messages',
    )
  ).rows[0];
  const walk: WindowWalk = { chunks: 0, rows: 0, longestMs: 0 };
  if (ends.lo === null || ends.hi === null) return walk;
  let hi = ends.hi + 1; // the newest message inside the first window
  let w = Math.max(1, (ends.hi - ends.lo) / 64); // seconds; the first windows double from here
  for (;;) {
    const last = hi - w <= ends.lo;
    const lo = last ? 0 : hi - w;
    const elapsed = await timedTransaction(client, async () => {
      await client.query("SET LOCAL work_mem = '64kB'"); // as the package's chunks
      await client.query('SET LOCAL enable_indexscan = off');
      await client.query('SET LOCAL enable_seqscan = off');
      walk.rows += (await client.query(statement, [lo, hi])).rowCount ?? 0;
    });
    walk.chunks++;
    walk.longestMs = Math.max(walk.longestMs, elapsed);
    if (last) return walk;
    hi = lo;
    if (elapsed < targetMs / 2) w *= 2;
    else if (elapsed > targetMs) w = (w * targetMs) / elapsed;
  }
}
