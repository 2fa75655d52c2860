// createSubagentRecognizer (DESIGN §10): turns ACP `session/update` params into the
// accumulated payload of a subagent invocation. Pure (no I/O, no clock), never throws.
//
// State, per (ACP session, toolCallId), exists only for calls recognized as subagents: the
// agent's other tool calls leave nothing behind. A call's state is dropped when its terminal
// update has been observed, by forget(session), and — so a long-lived host whose sessions
// never end cannot grow without limit — beyond maxCallsPerSession / maxCalls, least recently
// seen first (a Map's insertion order is the recency list; a touch re-inserts).
import type { SubagentTaskPayload } from '../types.js';
import { isTerminalToolStatus } from '../terminal-tool-status.js';
import { auggieShape } from './shapes/auggie.js';
import { claudeShape } from './shapes/claude.js';
import { cursorShape } from './shapes/cursor.js';
import { opencodeShape } from './shapes/opencode.js';
import type { AgentShape } from './shapes/shape.js';
import { readSubagentUpdate } from './shapes/subagent-update.js';
import { mergePayload } from './payload-merge.js';
import type { AcpSessionUpdateParams, RecognizedSubagentUpdate, SubagentRecognizer, SubagentRecognizerOptions } from './types.js';
import { field, object, text, type Json } from './wire.js';

// Order matters only where shapes could both claim a frame: Claude's `_meta.claudeCode.toolName`
// and Cursor's `rawInput._toolName` name the tool outright, so they are asked first.
const SHAPES: readonly AgentShape[] = [claudeShape, cursorShape, opencodeShape, auggieShape];

interface CallState {
  /** `${session}\0${toolCallId}`, its recency entry: built once, so each update hashes no new string. */
  key: string;
  shape: AgentShape | null; // null: a subagent_update child
  payload: SubagentTaskPayload;
  parentToolCallId: string | null;
  fallbackSubagentType?: string;
}

interface SessionState {
  calls: Map<string, CallState>;
  /** The call last re-inserted into `calls` (its most recent): an update of it moves nothing. */
  newest?: CallState;
  /** Child sessions announced by subagent_update on this session (their root is this session). */
  children: Set<string>;
}

const SEP = '\u0000';

export function createSubagentRecognizer(options: SubagentRecognizerOptions = {}): SubagentRecognizer {
  const maxPerSession = Math.max(1, options.maxCallsPerSession ?? 1024);
  const maxCalls = Math.max(1, options.maxCalls ?? 65_536);
  const sessions = new Map<string, SessionState>();
  /** Global recency list of remembered calls: `${session}\0${toolCallId}`. */
  const recency = new Map<string, true>();
  /** The call last re-inserted into `recency`. */
  let newest: CallState | undefined;
  /** A child session announced by subagent_update → the root ACP session it belongs to. */
  const childRoot = new Map<string, string>();

  function session(id: string): SessionState {
    let s = sessions.get(id);
    if (!s) sessions.set(id, (s = { calls: new Map(), children: new Set() }));
    return s;
  }

  function drop(sessionId: string, toolCallId: string, key = sessionId + SEP + toolCallId): void {
    const s = sessions.get(sessionId);
    s?.calls.delete(toolCallId);
    recency.delete(key);
    if (s && s.calls.size === 0 && s.children.size === 0) sessions.delete(sessionId);
  }

  /** Makes `state` the most recent call of its session and of all (a Map's order is its recency). */
  function remember(sessionId: string, toolCallId: string, state: CallState): void {
    const s = session(sessionId);
    if (s.newest !== state || s.calls.get(toolCallId) !== state) {
      s.calls.delete(toolCallId);
      s.calls.set(toolCallId, state);
      s.newest = state;
    }
    if (newest !== state || !recency.has(state.key)) {
      recency.delete(state.key);
      recency.set(state.key, true);
      newest = state;
    }
    if (s.calls.size > maxPerSession) drop(sessionId, s.calls.keys().next().value as string);
    while (recency.size > maxCalls) {
      const oldest = recency.keys().next().value as string;
      const at = oldest.indexOf(SEP);
      drop(oldest.slice(0, at), oldest.slice(at + 1));
    }
  }

  function snapshot(acpSessionId: string, toolCallId: string, state: CallState, toolStatus: string | null): RecognizedSubagentUpdate {
    const payload = { ...state.payload };
    if (payload.subagent_type === undefined && state.fallbackSubagentType !== undefined) payload.subagent_type = state.fallbackSubagentType;
    return { acpSessionId, toolCallId, parentToolCallId: state.parentToolCallId, toolStatus, payload };
  }

  /** The session a host knows: a subagent_update child's traffic belongs to its root session. */
  function rootOf(sessionId: string): string {
    return childRoot.get(sessionId) ?? sessionId;
  }

  /** Remembers a child's root, within the same bounds as calls (oldest child first). */
  function adoptChild(root: string, child: string): void {
    const children = session(root).children;
    childRoot.set(child, root);
    children.add(child);
    if (children.size > maxPerSession) forgetChild(children.values().next().value as string);
    if (childRoot.size > maxCalls) forgetChild(childRoot.keys().next().value as string);
  }

  function forgetChild(child: string): void {
    const root = childRoot.get(child);
    childRoot.delete(child);
    if (root === undefined) return;
    const s = sessions.get(root);
    s?.children.delete(child);
    if (s && s.calls.size === 0 && s.children.size === 0) sessions.delete(root);
  }

  function observeSubagentUpdate(sessionId: string, update: Json): RecognizedSubagentUpdate | undefined {
    const facts = readSubagentUpdate(update);
    if (!facts) return undefined;
    const root = rootOf(sessionId);
    // Announced on a child's session: a nested launch, its parent is that child.
    const parent = root === sessionId ? null : sessionId;
    if (!childRoot.has(facts.childSessionId)) adoptChild(root, facts.childSessionId);
    const state = sessions.get(root)?.calls.get(facts.childSessionId) ?? {
      key: root + SEP + facts.childSessionId,
      shape: null,
      payload: {},
      parentToolCallId: parent,
    };
    mergePayload(state.payload, facts.payload);
    const result = snapshot(root, facts.childSessionId, state, facts.toolStatus);
    if (facts.toolStatus !== null && isTerminalToolStatus(facts.toolStatus)) drop(root, facts.childSessionId, state.key);
    else remember(root, facts.childSessionId, state);
    return result;
  }

  function observeToolCall(sessionId: string, update: Json): RecognizedSubagentUpdate | undefined {
    const toolCallId = text(field(update, 'toolCallId'));
    if (toolCallId === undefined) return undefined;
    const root = rootOf(sessionId);
    let state = sessions.get(root)?.calls.get(toolCallId);
    if (!state) {
      let shape: AgentShape | undefined;
      for (const candidate of SHAPES) {
        const verdict = candidate.classify(update);
        if (verdict === undefined) continue;
        if (verdict) shape = candidate;
        break; // false: this agent's own tool call, not a subagent
      }
      if (!shape) return undefined;
      state = { key: root + SEP + toolCallId, shape, payload: {}, parentToolCallId: null };
    }
    const facts = state.shape!.read(update);
    mergePayload(state.payload, facts.payload);
    if (facts.parentToolCallId !== undefined) state.parentToolCallId = facts.parentToolCallId;
    if (facts.fallbackSubagentType !== undefined) state.fallbackSubagentType = facts.fallbackSubagentType;
    const status = field(update, 'status');
    const toolStatus = typeof status === 'string' ? status : null;
    const result = snapshot(root, toolCallId, state, toolStatus);
    if ((toolStatus !== null && isTerminalToolStatus(toolStatus)) || facts.last === true) drop(root, toolCallId, state.key);
    else remember(root, toolCallId, state);
    return result;
  }

  return {
    observe(params: AcpSessionUpdateParams): RecognizedSubagentUpdate | undefined {
      try {
        if (params === null || typeof params !== 'object') return undefined;
        // The notification's two fields, read directly (the SDK's own object; this runs on every
        // update); inside the update, only own properties count (src/acp/wire.ts).
        const sessionId = text(params.sessionId);
        const notification = object(params.update);
        if (sessionId === undefined || !notification) return undefined;
        const kind = field(notification, 'sessionUpdate');
        if (kind === 'subagent_update') return observeSubagentUpdate(sessionId, notification);
        if (kind === 'tool_call' || kind === 'tool_call_update') return observeToolCall(sessionId, notification);
        return undefined;
      } catch {
        // A hostile object (a throwing getter, a revoked proxy): not a readable update.
        return undefined;
      }
    },
    forget(acpSessionId: string): void {
      const s = sessions.get(acpSessionId);
      if (!s) return;
      for (const toolCallId of [...s.calls.keys()]) recency.delete(acpSessionId + SEP + toolCallId);
      for (const child of s.children) childRoot.delete(child);
      sessions.delete(acpSessionId);
    },
    size: () => recency.size + childRoot.size,
  };
}
