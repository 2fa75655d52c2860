// Cursor's `cursor/task` agent → client request (read by src/acp/shapes/cursor.ts) carries the
// model and agent id its Task tool call lacks; the recognizer joins it to that call's row by
// toolCallId. It names no session, and may come before its call: then it is held, bounded,
// until a Cursor Task call of its id is recognized (docs/acp-intake.md, "Cursor's cursor/task").
import type { SubagentTaskPayload } from '../types.js';
import { callKey, sessionCallId } from './call-ids.js';
import type { CallState, RecognizerState } from './recognizer-state.js';
import { cursorShape } from './shapes/cursor.js';

/** Most cursor/task requests held for a Task call not seen yet; oldest dropped first. */
const MAX_HELD = 1024;

/**
 * The remembered Cursor Task call a request means: on the session it named (`named`: that session
 * and its root; a call on a child session is known by its qualified id, sessionCallId), else on
 * the one session, root or child, that has such a call. Two with a call of that id (ids like
 * `call_1` repeat) are 'ambiguous': a wrong row is worse than a missing field. A Task call
 * joined to its child writes the child's row, so the row id is looked up.
 */
export function cursorTaskCall(
  memory: RecognizerState,
  named: { root: string; session: string } | undefined,
  toolCallId: string,
): { root: string; row: string; state: CallState } | 'ambiguous' | undefined {
  if (named !== undefined) return taskCallOn(memory, named.root, sessionCallId(named.root, named.session, toolCallId));
  let match: { root: string; row: string; state: CallState } | undefined;
  for (const root of memory.roots()) {
    for (const id of [toolCallId, ...[...memory.childrenOf(root)].map((child) => sessionCallId(root, child, toolCallId))]) {
      const found = taskCallOn(memory, root, id);
      if (found === undefined) continue;
      if (match !== undefined) return 'ambiguous';
      match = found;
    }
  }
  return match;
}

function taskCallOn(memory: RecognizerState, root: string, id: string): { root: string; row: string; state: CallState } | undefined {
  const row = memory.rowId(root, id);
  const state = memory.call(root, row);
  return state?.shape === cursorShape ? { root, row, state } : undefined;
}

/**
 * Requests held for a call not seen yet, by callKey(session, toolCallId) when the request named
 * its session (that session's own id, a child's included), else by callKey('', toolCallId): a
 * session id is never empty, so the two never meet. Each remembers the root its session had
 * when it came, so forget(root) drops it even after the child is no longer known.
 */
export class HeldCursorRequests {
  private readonly held = new Map<string, { session: string; root: string; payload: SubagentTaskPayload }>();

  get size(): number {
    return this.held.size;
  }

  hold(named: { root: string; session: string } | undefined, toolCallId: string, payload: SubagentTaskPayload): void {
    const key = callKey(named?.session ?? '', toolCallId);
    this.held.delete(key);
    this.held.set(key, { session: named?.session ?? '', root: named?.root ?? '', payload });
    if (this.held.size > MAX_HELD) this.held.delete(this.held.keys().next().value as string);
  }

  /**
   * The request held for a Cursor Task call now recognized on `sessionId`: one that named that
   * session (a child not announced when the request came included), else one that named none.
   * One that named the root is never a child's call's, nor the reverse.
   */
  take(sessionId: string, toolCallId: string): SubagentTaskPayload | undefined {
    for (const key of [callKey(sessionId, toolCallId), callKey('', toolCallId)]) {
      const held = this.held.get(key);
      if (held) {
        this.held.delete(key);
        return held.payload;
      }
    }
    return undefined;
  }

  /** Drops the requests that named `acpSessionId` or one of its children (by the root each had, or has now: `rootOf`). */
  forgetSession(acpSessionId: string, rootOf: (session: string) => string): void {
    for (const [key, held] of this.held)
      if (held.session !== '' && (held.root === acpSessionId || rootOf(held.session) === acpSessionId)) this.held.delete(key);
  }
}
