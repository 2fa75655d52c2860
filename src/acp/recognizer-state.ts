// The recognizer's memory (src/acp/recognizer.ts), bounded. State exists only for calls
// recognized as subagents: the agent's other tool calls leave nothing behind. A call's state
// is dropped when its terminal update has been observed, by forget(session), and — so a
// long-lived host whose sessions never end cannot grow without limit — beyond maxPerSession /
// maxCalls, least recently seen first (a Map's insertion order is the recency list; a touch
// re-inserts). Child sessions (ACP Subagent Sessions) map to the root session a host knows,
// and joins map a child or a tool call to the row both write, within the same bounds.
import type { SubagentTaskPayload } from '../types.js';
import type { AgentShape } from './shapes/shape.js';
import { callKey, sessionCallId } from './call-ids.js';

export interface CallState {
  /** callKey(root, id), its recency entry: built once, so each update hashes no new string. */
  key: string;
  /** The root session and row id it is remembered under (eviction reads them here, never from the key). */
  root: string;
  id: string;
  shape: AgentShape | null; // null: a subagent_update child no tool call has named
  payload: SubagentTaskPayload;
  parentToolCallId: string | null;
  fallbackSubagentType?: string;
  /**
   * Qwen Code's background launch: the tool call ended (its own terminal status) while its
   * subagent may still run, and the subagent's completion notice may come before or after that
   * end. The state goes once both were seen, in either order (recognizer.ts).
   */
  callEnded?: true;
  subagentEnded?: true;
  /** The tool call whose frames write this state now (a reused child's row passes to the call that reuses it). */
  owner?: string;
  /** The child this call last named in a `session` content item (its child_session_id may be another, learned first). */
  named?: string;
  /** The parent link as the agent sent it and on which session, once resolved to parentToolCallId (linkParent). */
  parentWire?: string;
}

interface SessionState {
  calls: Map<string, CallState>;
  /** The call last re-inserted into `calls` (its most recent): an update of it moves nothing. */
  newest?: CallState;
  /** Child sessions announced on this session (their root is this session). */
  children: Set<string>;
  /**
   * Joins learned from `session` content items: a child session id → the tool call whose row
   * it is, or a tool call that named an already-announced child → that child's row.
   */
  rowOf: Map<string, string>;
}

/**
 * A cap as given, at least 1; the default when it is not a finite number. A NaN (an unset
 * environment variable through Number()) would otherwise fail every `size > cap` test and
 * leave the state unbounded.
 */
export function bound(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.max(1, Math.floor(value)) : fallback;
}

export class RecognizerState {
  private readonly sessions = new Map<string, SessionState>();
  /** Global recency list of remembered calls, by callKey. */
  private readonly recency = new Map<string, CallState>();
  /**
   * Every join of every session, oldest first, by callKey(root, from): bounded by maxCalls like
   * the calls, so a host whose sessions each leave a join behind (and never call forget) cannot
   * keep a session entry per session forever.
   */
  private readonly joins = new Map<string, { root: string; from: string }>();
  /** The call last re-inserted into `recency`. */
  private newest: CallState | undefined;
  /** A child session → the root ACP session it belongs to; a Map's order is its recency (touchChild). */
  private readonly childRoot = new Map<string, string>();
  /** The child last re-inserted into `childRoot`: seeing it again moves nothing. */
  private newestChild: string | undefined;

  constructor(
    private readonly maxPerSession: number,
    private readonly maxCalls: number,
  ) {}

  /**
   * Whether a running call holds a child's row: the call whose row it is (`row`, a state with a
   * shape), or any call still remembered that named the child (`named`, or its
   * `child_session_id`), whether it writes that row or kept its own. A scan of the session's calls (at most maxPerSession),
   * made only when a new call names an announced child.
   */
  isHeld(root: string, child: string, row: CallState | undefined): boolean {
    if (row !== undefined && row.shape !== null) return true;
    const calls = this.sessions.get(root)?.calls;
    if (calls) for (const state of calls.values()) if (state.shape !== null && (state.named === child || state.payload.child_session_id === child)) return true;
    return false;
  }

  /** The remembered state of a call (or joined child row) on a root session. */
  call(root: string, id: string): CallState | undefined {
    return this.sessions.get(root)?.calls.get(id);
  }

  /** The root sessions with anything remembered. */
  roots(): IterableIterator<string> {
    return this.sessions.keys();
  }

  /**
   * Sets the row an agent's own parent link (`wire`) names. On the root session, the id as sent.
   * On a child session, a link within the session (`inSession`, Qwen Code's) names that session's
   * call, by its qualified id; any other names a call the recognizer remembers: of that session,
   * else of the root (Claude Code's `parentToolUseId` there names the call that launched the
   * child, in the parent session), and a link to neither leaves the parent as it was (the child's
   * row). Resolved once per link: the parent may settle and be forgotten while the call runs, and
   * its id resolved again could then name another call (one not yet seen is tried again).
   */
  linkParent(state: CallState, sessionId: string, wire: string, inSession: boolean): void {
    if (sessionId === state.root) {
      // The id as sent, every frame (no string built on this path: most links are on the root).
      state.parentToolCallId = wire;
      state.parentWire = undefined;
      return;
    }
    // The link as sent and where: the same id from another child session is another link.
    const link = `${inSession ? '+' : '-'}${callKey(sessionId, wire)}`;
    if (state.parentWire === link) return;
    if (inSession) {
      state.parentWire = link;
      state.parentToolCallId = sessionCallId(state.root, sessionId, wire);
      return;
    }
    for (const candidate of [sessionCallId(state.root, sessionId, wire), wire]) {
      const row = this.rowId(state.root, candidate);
      if (this.call(state.root, row) === undefined) continue;
      state.parentWire = link; // only once resolved: a link to a call not seen yet is tried again
      state.parentToolCallId = row;
      return;
    }
  }

  /** The child sessions known under a root (nested ones included), least recently seen first. */
  childrenOf(root: string): Iterable<string> {
    return this.sessions.get(root)?.children ?? [];
  }

  newCall(root: string, id: string, shape: AgentShape | null, parentToolCallId: string | null): CallState {
    return { key: callKey(root, id), root, id, shape, payload: {}, parentToolCallId };
  }

  private session(id: string): SessionState {
    let s = this.sessions.get(id);
    if (!s) this.sessions.set(id, (s = { calls: new Map(), children: new Set(), rowOf: new Map() }));
    return s;
  }

  private dropIfEmpty(id: string, s: SessionState | undefined): void {
    if (s && s.calls.size === 0 && s.children.size === 0 && s.rowOf.size === 0) this.sessions.delete(id);
  }

  drop(sessionId: string, toolCallId: string, key = callKey(sessionId, toolCallId)): void {
    const s = this.sessions.get(sessionId);
    s?.calls.delete(toolCallId);
    this.recency.delete(key);
    this.dropIfEmpty(sessionId, s);
  }

  /** Makes `state` the most recent call of its session and of all (a Map's order is its recency). */
  remember(sessionId: string, toolCallId: string, state: CallState): void {
    const s = this.session(sessionId);
    if (s.newest !== state || s.calls.get(toolCallId) !== state) {
      s.calls.delete(toolCallId);
      s.calls.set(toolCallId, state);
      s.newest = state;
    }
    if (this.newest !== state || !this.recency.has(state.key)) {
      this.recency.delete(state.key);
      this.recency.set(state.key, state);
      this.newest = state;
    }
    if (s.calls.size > this.maxPerSession) this.drop(sessionId, s.calls.keys().next().value as string);
    while (this.recency.size > this.maxCalls) {
      const [key, oldest] = this.recency.entries().next().value as [string, CallState];
      this.drop(oldest.root, oldest.id, key);
    }
  }

  /** The session a host knows: a child's traffic belongs to its root session (and keeps the child recent). */
  rootOf(sessionId: string): string {
    const root = this.childRoot.get(sessionId);
    if (root === undefined) return sessionId;
    this.touchChild(sessionId);
    return root;
  }

  /**
   * A known child was seen (its own traffic, its subagent_update, or an update of the call that
   * named it): it becomes the most recent child of its session and of all, and so does its join,
   * so the bounds drop the children and joins least recently seen, not the oldest announced (a
   * child that runs for hours while a thousand short ones come and go keeps its row).
   */
  touchChild(child: string): void {
    if (this.newestChild === child) return;
    const root = this.childRoot.get(child);
    if (root === undefined) return;
    this.childRoot.delete(child);
    this.childRoot.set(child, root);
    this.newestChild = child;
    const s = this.sessions.get(root);
    if (!s) return;
    s.children.delete(child);
    s.children.add(child);
    const row = s.rowOf.get(child);
    if (row === undefined) return;
    s.rowOf.delete(child);
    s.rowOf.set(child, row);
    const key = callKey(root, child);
    this.joins.delete(key);
    this.joins.set(key, { root, from: child });
  }

  /** The root of a known child session, else undefined. */
  rootOfChild(child: string): string | undefined {
    return this.childRoot.get(child);
  }

  hasChildren(): boolean {
    return this.childRoot.size > 0;
  }

  /** Remembers a child's root, within the same bounds as calls (oldest child first). */
  adoptChild(root: string, child: string): void {
    const children = this.session(root).children;
    this.childRoot.set(child, root);
    this.newestChild = child;
    children.add(child);
    if (children.size > this.maxPerSession) this.forgetChild(children.values().next().value as string);
    if (this.childRoot.size > this.maxCalls) this.forgetChild(this.childRoot.keys().next().value as string);
  }

  private forgetChild(child: string): void {
    const root = this.childRoot.get(child);
    this.childRoot.delete(child);
    if (this.newestChild === child) this.newestChild = undefined;
    if (root === undefined) return;
    const s = this.sessions.get(root);
    s?.children.delete(child);
    if (s?.rowOf.delete(child)) this.joins.delete(callKey(root, child));
    this.dropIfEmpty(root, s);
  }

  /** The row id (tool_call_id) of a child session or tool call on `root`, after any join. */
  rowId(root: string, id: string): string {
    return this.sessions.get(root)?.rowOf.get(id) ?? id;
  }

  /** Records a join, bounded like the calls (oldest first). */
  join(root: string, from: string, to: string): void {
    const rows = this.session(root).rowOf;
    const key = callKey(root, from);
    rows.delete(from);
    rows.set(from, to);
    this.joins.delete(key);
    this.joins.set(key, { root, from });
    if (rows.size > 2 * this.maxPerSession) this.unjoin(root, rows.keys().next().value as string);
    if (this.joins.size > this.maxCalls) {
      const oldest = this.joins.values().next().value as { root: string; from: string };
      this.unjoin(oldest.root, oldest.from);
    }
  }

  unjoin(root: string, from: string): void {
    this.joins.delete(callKey(root, from));
    const s = this.sessions.get(root);
    s?.rowOf.delete(from);
    this.dropIfEmpty(root, s);
  }

  /** A child's parent row: the row of the child session its traffic arrives on, if that is not the root. */
  parentRow(root: string, sessionId: string): string | null {
    return root === sessionId ? null : this.rowId(root, sessionId);
  }

  /** Drops everything remembered for a root session. */
  forget(acpSessionId: string): void {
    const s = this.sessions.get(acpSessionId);
    if (!s) return;
    for (const toolCallId of s.calls.keys()) this.recency.delete(callKey(acpSessionId, toolCallId));
    for (const from of s.rowOf.keys()) this.joins.delete(callKey(acpSessionId, from));
    for (const child of s.children) this.childRoot.delete(child);
    this.newestChild = undefined;
    this.sessions.delete(acpSessionId);
  }

  size(): number {
    return this.recency.size + this.childRoot.size + this.joins.size;
  }
}
