// Issue 32: how many times a chunked backfill walk reads the host's messages table, computed
// from where the messages really sit. A chunk reads every heap page holding a message of one of
// its sessions, so the sum of the chunks' distinct pages over the table's pages is the walk's
// read amplification (1.00: each page once, as the single statement's sequential scan reads
// it). Used by ../walk-amplification.ts (the cached stores) and ../interleaved-walk.ts (stores
// whose sessions interleave more).
import type pg from 'pg';

export interface SessionPages {
  id: string;
  createdAt: Date;
  /** The heap pages (block numbers) holding this session's messages. */
  pages: number[];
}

export async function tablePages(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ pages: string }>(`SELECT pg_relation_size('task_session_messages') / current_setting('block_size')::int AS pages`);
  return Number(rows[0].pages);
}

/** Every session with messages and the pages they sit on ((ctid::text::point)[0] is a tuple's block number). */
export async function sessionPages(client: pg.ClientBase): Promise<SessionPages[]> {
  const { rows } = await client.query<{ id: string; created_at: Date; pages: number[] }>(
    `SELECT s.id, s.created_at, array_agg(DISTINCT (m.ctid::text::point)[0]::int) AS pages
       FROM task_sessions AS s JOIN task_session_messages AS m ON m.task_session_id = s.id
      GROUP BY s.id, s.created_at`,
  );
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at, pages: r.pages }));
}

/** The walk's `ORDER BY s.id` on the benchmark stores' keys: hex and ASCII, where UTF-16 order is byte order. */
export const byKey = (a: SessionPages, b: SessionPages) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Sessions in the order they were created (key order among equals). */
export const byCreatedAt = (a: SessionPages, b: SessionPages) => a.createdAt.getTime() - b.createdAt.getTime() || byKey(a, b);

/**
 * Sum over `chunks` equal runs of `order` of the pages each run touches, over the table's pages.
 * A model: the real walk sizes its chunks by time as it goes (src/migrations/backfill-step.ts),
 * and rounding the run length up can give one run fewer than asked.
 */
export function amplification(order: SessionPages[], chunks: number, pages: number): number {
  const per = Math.ceil(order.length / chunks);
  let touched = 0;
  for (let i = 0; i < order.length; i += per) {
    const seen = new Set<number>();
    for (const session of order.slice(i, i + per)) for (const page of session.pages) seen.add(page);
    touched += seen.size;
  }
  return touched / pages;
}
