// Cursor's `cursor/task` agent → client request (read by src/acp/shapes/cursor.ts) carries the
// model and agent id its Task tool call lacks; the recognizer joins it to that call's row by
// toolCallId. It names no session, and may come before its call: then it is held, bounded,
// until a Cursor Task call of its id is recognized (docs/acp-intake.md, "Cursor's cursor/task").
import type { SubagentTaskPayload } from '../types.js';
import { callKey, type CallState, type RecognizerState } from './recognizer-state.js';
import { cursorShape } from './shapes/cursor.js';

/** Most cursor/task requests held for a Task call not seen yet; oldest dropped first. */
const MAX_HELD = 1024;

/**
 * The remembered Cursor Task call a request means: on its session when it named one (`named`,
 * that session's root), else on the one session that has such a call. Two sessions with a call
 * of that id (ids like `call_1` repeat) are 'ambiguous': a wrong row is worse than a missing
 * field. A Task call joined to its child writes the child's row, so the row id is looked up.
 */
export function cursorTaskCall(
  memory: RecognizerState,
  named: string | undefined,
  toolCallId: string,
): { root: string; row: string; state: CallState } | 'ambiguous' | undefined {
  let match: { root: string; row: string; state: CallState } | undefined;
  for (const root of named !== undefined ? [named] : memory.roots()) {
    const row = memory.rowId(root, toolCallId);
    const state = memory.call(root, row);
    if (state?.shape !== cursorShape) continue;
    if (match !== undefined) return 'ambiguous';
    match = { root, row, state };
  }
  return match;
}

/**
 * Requests held for a call not seen yet, by callKey(session, toolCallId) when the request named
 * its session (its root when known), else by callKey('', toolCallId): a session id is never
 * empty, so the two never meet.
 */
export class HeldCursorRequests {
  private readonly held = new Map<string, { session: string; payload: SubagentTaskPayload }>();

  get size(): number {
    return this.held.size;
  }

  hold(session: string | undefined, toolCallId: string, payload: SubagentTaskPayload): void {
    const key = callKey(session ?? '', toolCallId);
    this.held.delete(key);
    this.held.set(key, { session: session ?? '', payload });
    if (this.held.size > MAX_HELD) this.held.delete(this.held.keys().next().value as string);
  }

  /**
   * The request held for a Cursor Task call now recognized on `sessionId` (root `root`): one
   * that named its root, or its session as a child not announced when the request came, else
   * one that named no session.
   */
  take(root: string, sessionId: string, toolCallId: string): SubagentTaskPayload | undefined {
    for (const key of [callKey(root, toolCallId), callKey(sessionId, toolCallId), callKey('', toolCallId)]) {
      const held = this.held.get(key);
      if (held) {
        this.held.delete(key);
        return held.payload;
      }
    }
    return undefined;
  }

  /** Drops the requests that named `acpSessionId` or one of its children (`rootOf`, asked before its state goes). */
  forgetSession(acpSessionId: string, rootOf: (session: string) => string): void {
    for (const [key, held] of this.held) if (held.session !== '' && rootOf(held.session) === acpSessionId) this.held.delete(key);
  }
}
