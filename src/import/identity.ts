// The execution identity of imported rows. A transcript carries no execution id, and the spec
// keys rows on (session, execution, tool call) with a real id always a UUID (AC-30, AC-31); an
// import must also land on the same rows every time it runs. So each agent session is one
// execution whose id is derived from the importer and the session id: UUID-shaped (version 8,
// name-based), stable across imports, never 'unknown'. A resumed session (the same session id,
// the same file) stays in that execution: tool-use ids are unique, so the key stays safe.
import { createHash } from 'node:crypto';
import { MAX_COLUMN_INSTANT_NS } from '../column-time.js';
import { MAX_ID_BYTES, storableText } from '../identity.js';

export function importedExecutionId(source: string, sessionId: string): string {
  const h = createHash('sha256').update(`subagent-context-import\u0000${source}\u0000${sessionId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Nanoseconds of an ISO-8601 timestamp a transcript line carries, else undefined: also for an
 * instant the store's columns cannot hold (before 1970 or from year 10000, the store's own
 * range), which PostgreSQL would refuse and SQLite write as malformed text; the line is then
 * read as one without a timestamp, so both dialects store the same thing.
 */
export function lineInstant(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  const ns = BigInt(ms) * 1_000_000n;
  return ns >= 0n && ns < MAX_COLUMN_INSTANT_NS ? ns : undefined;
}

/** Why the store would not record this id (src/identity.ts, recordableId), for a WARN. */
export function unrecordableBecause(value: string): string {
  return storableText(value) === null ? 'it contains a NUL character or an unpaired surrogate' : `it is longer than ${MAX_ID_BYTES} UTF-8 bytes`;
}
