// The ids the recognizer keeps calls under: a (session, id) pair as one map key, a call of a
// child session as the root's rows know it, and the key the reported-delegation set remembers.
import { createHash } from 'node:crypto';
import { LONG_ID_DIGEST_PREFIX, recordableId } from '../identity.js';

/**
 * One string per (session, id) pair, unambiguous whatever the ids hold: the session's length
 * first. (A separator character could also occur in an agent's ids: a NUL in a session id made
 * two calls share an entry and let eviction miss the call it meant to drop.)
 */
export function callKey(session: string, id: string): string {
  return `${session.length}:${session}${id}`;
}

/**
 * The id a tool call is known by in its root session's rows. ACP makes a toolCallId unique within
 * its session only, and a child session's calls write rows of the root's host session: there a
 * child's `call_1` and the root's `call_1` are two calls, so a call seen on a child session is
 * `<child session id>/<its id>` (docs/acp-intake.md, "A child session's own tool calls"). A
 * root's calls keep their ids.
 */
export function sessionCallId(root: string, sessionId: string, toolCallId: string): string {
  if (sessionId === root) return toolCallId;
  const id = `${sessionId}/${toolCallId}`;
  // Two recordable ids can make one the store cannot record (MAX_ID_BYTES): then a digest of the
  // pair, so the call still has one row (as a long execution id does, src/identity.ts). An id
  // the store would skip on its own stays as it is, skipped as it would be on the root.
  if (recordableId(id) !== null || recordableId(sessionId) === null || recordableId(toolCallId) === null) return id;
  return digest(callKey(sessionId, toolCallId));
}

/**
 * `sha256:` and the digest of a key's UTF-16 units (as a long execution id's stand-in is written,
 * src/identity.ts): two keys differing in a lone surrogate, which UTF-8 would blur, stay two.
 */
function digest(key: string): string {
  return LONG_ID_DIGEST_PREFIX + createHash('sha256').update(key, 'utf16le').digest('hex');
}

/** A reportedKey longer than this is a digest (two ids of 512 characters and their lengths fit below it). */
const MAX_REPORTED_KEY = 1100;

/**
 * callKey(session, id) as the set of reported delegations remembers it: a digest when the ids are
 * long, so its 4,096 keys never hold an agent's megabyte ids. A callKey starts with a digit, so a
 * digest never equals one.
 */
export function reportedKey(session: string, id: string): string {
  const key = callKey(session, id);
  return key.length <= MAX_REPORTED_KEY ? key : digest(key);
}
