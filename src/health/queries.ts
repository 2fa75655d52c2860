// What the dialect-neutral health check needs from a database: one function per statement
// in queries/<dialect>/, each binding the window start its own way (docs/timestamps.md).
// src/sqlite/health.ts and src/postgres/health.ts implement it with generated functions.
import type { JsonHelper } from '../migrations/json-helper.js';
import type { HealthReport } from '../types.js';

export const STORE_TABLES = ['task_sessions', 'task_session_messages', 'kandev_meta', 'task_session_subagents'] as const;
export type StoreTable = (typeof STORE_TABLES)[number];
export type TablePresence = Record<StoreTable, boolean>;

/** The four window counts, which the check runs as two chains. */
export type WindowCounts = Pick<HealthQueries, 'countShortfall' | 'countExcess' | 'countCollisions' | 'maxObservedAt'>;

export interface HealthQueries {
  /** Which of the tables the package reads exist. */
  probeTables(): Promise<TablePresence>;
  /** PostgreSQL's pg_input_is_valid(text, text) as the shape probe judges it (SQLite: always current). */
  jsonHelper(): Promise<JsonHelper>;
  /** The three activation keys verbatim, null when absent. */
  readKeys(): Promise<HealthReport['keys']>;
  /** AC-28 SHORTFALL for the window starting at `sinceNs` (nanoseconds since the epoch). */
  countShortfall(sinceNs: bigint): Promise<number>;
  /** AC-28 EXCESS for the same window. */
  countExcess(sinceNs: bigint): Promise<number>;
  /** AC-28 / AC-32 cross-execution collisions in the window. */
  countCollisions(sinceNs: bigint): Promise<number>;
  /** AC-29 scoped MAX(observed_at), 'YYYY-MM-DDTHH:MM:SS.ffffffZ', or null. */
  maxObservedAt(sinceNs: bigint): Promise<string | null>;
  /**
   * PostgreSQL: runs one chain of counts on one connection, in one transaction whose
   * search_path is pinned first (queries/postgres/set_local_search_path.sql), because the
   * anti-joins test JSON through pg_input_is_valid. Absent on SQLite: the chain runs as is.
   */
  pinnedChain?<T>(chain: (counts: WindowCounts) => Promise<T>): Promise<T>;
}
