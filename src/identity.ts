// The one definition of a recordable identity: what this package reads AC-2's "empty id" to
// include (docs/guarantees.md, "Identity bounds"). The live writer applies it here; the backfill, the
// backfill_through read and the health shortfall apply the same predicate in SQL, as the
// `recordable_id` fragment (queries/<dialect>/fragments/recordable_id.sql, one per dialect, its
// length pinned to this file's constant by test/codegen-fragments.test.ts), so
// the three can never disagree about which frames and messages are recordable (AC-21a, AC-28).
import { createHash } from 'node:crypto';

/**
 * The most UTF-8 bytes a recordable id may have: the one limit, for session, task, tool-call,
 * execution and turn ids alike.
 *
 * Why this number: ids live in btree indexes, and a PostgreSQL btree entry cannot exceed 2704
 * bytes (8 kB pages) however the value would compress: an incompressible id is stored as is.
 * The upsert key (task_session_id, agent_execution_id, tool_call_id) puts three ids in ONE entry:
 * 8 bytes of tuple header plus, per id, a 4-byte length header and its bytes, so three ids of
 * 512 bytes make 1,556 bytes, within the limit with room to spare (three of 894 would be the
 * ceiling). SQLite has no such limit; the bound applies there too so that both dialects record
 * the same frames and the same messages.
 */
export const MAX_ID_BYTES = 512;

const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed; // ES2024, Node >= 20

/**
 * The text rule every column shares (spec, column-level normalization): a string, '' read as
 * not reported, and nothing either dialect cannot store verbatim — a NUL character (PostgreSQL
 * text rejects it) or a lone UTF-16 surrogate (not UTF-8).
 */
export function storableText(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.indexOf('\u0000') === -1 && isWellFormed.call(value) ? value : null;
}

/** A recordable id: storable text of at most MAX_ID_BYTES UTF-8 bytes, else null ("empty", AC-2). */
export function recordableId(value: unknown): string | null {
  const s = storableText(value);
  // A UTF-16 code unit is at most 3 UTF-8 bytes, so short strings skip the byte count.
  return s === null || s.length * 3 <= MAX_ID_BYTES || Buffer.byteLength(s, 'utf8') <= MAX_ID_BYTES ? s : null;
}

/** Prefix of a long execution id's stand-in. Never a UUID, never 'unknown', so it collides with neither. */
export const LONG_ID_DIGEST_PREFIX = 'sha256:';

/**
 * The execution id a row is keyed on, or null when the frame has none (AC-31's sentinel then
 * applies). A recordable id is kept verbatim (AC-30). A storable id beyond MAX_ID_BYTES is an
 * identity the database cannot index, not an absent one: it is replaced by
 * `sha256:<64 hex digits of its UTF-8 bytes>`, so each execution keeps its own row (AC-32, AC-15)
 * rather than sharing 'unknown' with every other long id, and every frame of that execution
 * lands on the same row. Execution ids are UUIDs in the host; this only guards the key.
 */
export function recordableExecutionId(value: unknown): string | null {
  const s = storableText(value);
  if (s === null) return null;
  return recordableId(s) ?? LONG_ID_DIGEST_PREFIX + createHash('sha256').update(s, 'utf8').digest('hex');
}
