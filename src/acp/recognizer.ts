// createSubagentRecognizer (DESIGN §10): turns ACP `session/update` params into the
// accumulated payload of a subagent invocation. Pure (no I/O, no clock), never throws.
//
// State is kept per (ACP session, toolCallId), only for calls recognized as subagents, and
// bounded (src/acp/recognizer-state.ts); this file reads the updates: which agent's shape
// claims a call, ACP's child sessions and their joins to tool calls, Cursor's request, Qwen's
// completion notices, and the lookalikes no shape claims (src/acp/delegation-lookalike.ts).
import type { SubagentTaskPayload } from '../types.js';
import { isTerminalToolStatus } from '../terminal-tool-status.js';
import { auggieShape } from './shapes/auggie.js';
import { claudeShape } from './shapes/claude.js';
import { codexShape } from './shapes/codex.js';
import { cursorShape, readCursorTask } from './shapes/cursor.js';
import { cursorTaskCall, HeldCursorRequests } from './cursor-requests.js';
import { geminiShape } from './shapes/gemini.js';
import { opencodeShape } from './shapes/opencode.js';
import { qwenShape, readQwenBackgroundCompletion } from './shapes/qwen.js';
import type { AgentShape } from './shapes/shape.js';
import { reportedKey, sessionCallId } from './call-ids.js';
import { bound, RecognizerState, type CallState } from './recognizer-state.js';
import { acpSessionShape } from './shapes/acp-session.js';
import { readChildInfo, readChildState, readSubagentUpdate, saysNothing, sessionContentChild } from './shapes/subagent-update.js';
import { delegationLookalike } from './delegation-lookalike.js';
import { mergePayload } from './payload-merge.js';
import type { AcpSessionUpdateParams, RecognizedSubagentUpdate, SubagentRecognizer, SubagentRecognizerOptions } from './types.js';
import { field, object, text, type Json } from './wire.js';

// Order matters only where shapes could both claim a frame: Claude's `_meta.claudeCode.toolName`,
// Cursor's `rawInput._toolName` and Qwen's `_meta.toolName` (beside `_meta.provenance`) name the
// tool outright, so they are asked first; ACP's own `session` content item last, so an agent's
// shape that reads more keeps its fields.
export const SHAPES: readonly AgentShape[] = [claudeShape, cursorShape, qwenShape, geminiShape, opencodeShape, auggieShape, codexShape, acpSessionShape];

/** Most distinct unrecognized delegations remembered (so each is reported once); oldest first beyond it. */
const MAX_REPORTED = 4096;

export function createSubagentRecognizer(options: SubagentRecognizerOptions = {}): SubagentRecognizer {
  return recognizerWithShapes(SHAPES, options);
}

/**
 * The recognizer over a given list of shapes (tests leave one out to prove the package notices
 * it is blind). `lookalikes: false` skips the unrecognized-delegation check (the benchmark's
 * baseline for what the check costs).
 */
export function recognizerWithShapes(
  shapes: readonly AgentShape[],
  options: SubagentRecognizerOptions = {},
  { lookalikes = true }: { lookalikes?: boolean } = {},
): SubagentRecognizer {
  const memory = new RecognizerState(bound(options.maxCallsPerSession, 1024), bound(options.maxCalls, 65_536));

  function snapshot(acpSessionId: string, toolCallId: string, call: CallState, toolStatus: string | null): RecognizedSubagentUpdate {
    // The payload holds a key only with a value (mergePayload), so the fallback put first is
    // overridden by a learned type. Never a key added after the spread: on Node 20's V8 that
    // costs about a microsecond per object (shapes/subagent-update.ts).
    const fallback = call.fallbackSubagentType;
    const payload = fallback === undefined ? { ...call.payload } : { subagent_type: fallback, ...call.payload };
    return { acpSessionId, toolCallId, parentToolCallId: call.parentToolCallId, toolStatus, payload };
  }

  const onUnrecognized = options.onUnrecognizedDelegation;
  /** Qwen Code's background completion notices are read only with its shape (a test leaves it out). */
  const qwenCompletions = shapes.includes(qwenShape);
  /** reportedKey(session, id) of each unrecognized delegation already reported. */
  const reported = new Set<string>();

  function unrecognized(acpSessionId: string, id: string, title: string | null, reason: string): void {
    if (!onUnrecognized) return;
    const key = reportedKey(acpSessionId, id);
    if (reported.has(key)) return;
    reported.add(key);
    if (reported.size > MAX_REPORTED) reported.delete(reported.values().next().value as string);
    try {
      onUnrecognized({ acpSessionId, id, title, reason });
    } catch {
      // the host's callback: never breaks recognition
    }
  }

  const heldRequests = new HeldCursorRequests();

  function observeSubagentUpdate(sessionId: string, update: Json): RecognizedSubagentUpdate | undefined {
    const facts = readSubagentUpdate(update);
    if (!facts) {
      unrecognized(sessionId, 'subagent_update', null, 'a subagent_update without a child session id');
      return undefined;
    }
    const root = memory.rootOf(sessionId);
    if (memory.rootOfChild(facts.childSessionId) !== undefined) {
      memory.touchChild(facts.childSessionId);
      if (saysNothing(update)) return undefined;
    } else memory.adoptChild(root, facts.childSessionId);
    return apply(root, memory.rowId(root, facts.childSessionId), memory.parentRow(root, sessionId), facts.toolStatus, facts.payload);
  }

  /** Merges a child's facts into its row's state (made when absent) and settles or remembers it. */
  function apply(root: string, id: string, parent: string | null, toolStatus: string | null, payload: SubagentTaskPayload): RecognizedSubagentUpdate {
    const state = memory.call(root, id) ?? memory.newCall(root, id, null, parent);
    mergePayload(state.payload, payload);
    const result = snapshot(root, id, state, toolStatus);
    // A child's idle settles the row but not the tool call that named it: the call's own
    // updates (its result, its status) may still come, and are read through its shape.
    if (toolStatus !== null && isTerminalToolStatus(toolStatus) && state.shape === null) memory.drop(root, id, state.key);
    else memory.remember(root, id, state);
    return result;
  }

  /** A known child's own traffic (ACP v2): its `state_update` and its title on `session_info_update`. */
  function observeChildSession(child: string, kind: unknown, update: Json): RecognizedSubagentUpdate | undefined {
    const root = memory.rootOfChild(child);
    if (root === undefined) return undefined;
    memory.touchChild(child);
    const id = memory.rowId(root, child);
    if (kind === 'state_update') {
      const facts = readChildState(update);
      return facts && apply(root, id, null, facts.toolStatus, facts.payload);
    }
    const info = readChildInfo(update);
    return info && apply(root, id, null, null, info);
  }

  /** The shape that claims a tool call not seen before; `known`: an agent's shape that said "not a subagent". */
  function classify(update: Json): { shape?: AgentShape; known?: AgentShape } {
    for (const candidate of shapes) {
      const verdict = candidate.classify(update);
      if (verdict === undefined) continue;
      return verdict ? { shape: candidate } : { known: candidate }; // false: this agent's own tool call
    }
    return {};
  }

  function observeToolCall(sessionId: string, update: Json, first: boolean): RecognizedSubagentUpdate | undefined {
    const wireId = text(field(update, 'toolCallId'));
    if (wireId === undefined) return undefined;
    const root = memory.rootOf(sessionId);
    const callId = sessionCallId(root, sessionId, wireId);
    let toolCallId = memory.rowId(root, callId);
    let state = memory.call(root, toolCallId);
    // A `tool_call` under an id that an ended call had joined to another row starts a new call:
    // the old join goes (while a call still runs on that row, it is that call's frame again).
    if (first && toolCallId !== callId && (state === undefined || state.shape === null) && memory.rootOfChild(callId) === undefined) {
      memory.unjoin(root, callId);
      toolCallId = callId;
      state = memory.call(root, callId);
    }
    if (!state || state.shape === null) {
      const { shape, known } = classify(update);
      if (!shape) {
        if (state || !lookalikes) return undefined; // state: a child's row whose tool call says nothing readable here
        const reason = delegationLookalike(update, first, known);
        if (reason !== undefined) unrecognized(root, callId, text(field(update, 'title')) ?? null, reason);
        return undefined;
      }
      if (!state) {
        // First sight of the call. If it names a child already announced, it writes that
        // child's row: one row for the two. A child a first call already named (and joined) is
        // that call's row: a second call naming it after the first ended writes it too (reuse).
        const child = sessionContentChild(update);
        const row = child !== undefined && child !== callId && memory.rootOfChild(child) === root ? memory.rowId(root, child) : callId;
        // Not while a call that named the child runs: its own end settles its row, and the second
        // call (a message to the child) is then a row of its own, the child staying where it is.
        if (row !== callId && !memory.isHeld(root, child!, memory.call(root, row))) {
          memory.join(root, callId, row);
          toolCallId = row;
          state = memory.call(root, row);
        }
      }
      state ??= memory.newCall(root, toolCallId, shape, memory.parentRow(root, sessionId));
      state.shape = shape;
      state.owner = callId;
      const requested = shape === cursorShape && heldRequests.size > 0 ? heldRequests.take(sessionId, wireId) : undefined;
      if (requested) mergePayload(state.payload, requested);
    }
    const facts = state.shape!.read(update);
    // After the completion notice, a background launch's own late end says `background`: older news.
    if (state.subagentEnded) facts.payload.status = undefined;
    mergePayload(state.payload, facts.payload);
    if (facts.parentToolCallId !== undefined) memory.linkParent(state, sessionId, facts.parentToolCallId, facts.parentInSession === true);
    if (facts.fallbackSubagentType !== undefined) state.fallbackSubagentType = facts.fallbackSubagentType;
    const child = sessionContentChild(update);
    if (child !== undefined) joinChild(root, toolCallId, child, state);
    if (state.named !== undefined) memory.touchChild(state.named); // the call's child is in use while the call is seen
    const status = field(update, 'status');
    const toolStatus = facts.toolStatus !== undefined ? facts.toolStatus : typeof status === 'string' ? status : null;
    const result = snapshot(root, toolCallId, state, toolStatus);
    if (facts.usage !== undefined) result.usage = facts.usage; // this update's report, never carried over
    // A late frame of an ended call whose row a second call has since taken (a reused child):
    // written, but the state is the running call's, for its own end to settle.
    if (state.owner !== undefined && state.owner !== callId) return result;
    // A background launch's own end (Qwen Code): the tool call is over, its subagent perhaps not.
    // Once the subagent's completion notice was seen too, nothing more will come for the call.
    if (toolStatus === null && typeof status === 'string' && isTerminalToolStatus(status)) state.callEnded = true;
    if ((toolStatus !== null && isTerminalToolStatus(toolStatus)) || facts.last === true || (state.callEnded && state.subagentEnded))
      memory.drop(root, toolCallId, state.key);
    else memory.remember(root, toolCallId, state);
    return result;
  }

  /**
   * A tool call names its child session: from now on the child's subagent_updates and its own
   * traffic write the tool call's row. A call recognized before it named a child that was
   * already announced keeps its own row, and so does the child: its earlier updates are already
   * a row, which only its own later updates (its idle) can settle.
   */
  function joinChild(root: string, toolCallId: string, child: string, state: CallState): void {
    state.payload.child_session_id ??= child;
    state.named = child;
    const row = memory.rowId(root, child);
    if (toolCallId === child || row === toolCallId) return;
    const announced = memory.rootOfChild(child);
    // Announced here: the child keeps its row, its own or another call's. This call writes its
    // own, and while it runs holds the child's all the same (`named`: memory.isHeld).
    if (announced === root) return;
    if (announced === undefined) memory.adoptChild(root, child);
    memory.join(root, child, toolCallId);
  }

  /** Agent → client requests: Cursor's `cursor/task` carries the model and agent id its Task call lacks. */
  function observeRequest(method: string, params: Json): RecognizedSubagentUpdate | undefined {
    if (method !== 'cursor/task') return undefined;
    const facts = readCursorTask(params);
    if (!facts) return undefined;
    const sessionId = text(field(params, 'sessionId'));
    const named = sessionId === undefined ? undefined : { root: memory.rootOf(sessionId), session: sessionId };
    const match = cursorTaskCall(memory, named, facts.toolCallId);
    if (match === 'ambiguous') return undefined;
    if (match !== undefined) {
      mergePayload(match.state.payload, facts.payload);
      memory.remember(match.root, match.row, match.state);
      return snapshot(match.root, match.row, match.state, null);
    }
    heldRequests.hold(named, facts.toolCallId, facts.payload); // came first: joined when a call of the session it named is recognized
    return undefined;
  }

  /** Drops everything remembered for a root session, its held cursor/task requests included. */
  function forget(acpSessionId: string): void {
    // Before the state goes: a request held under a child session is matched through its root.
    if (heldRequests.size > 0) heldRequests.forgetSession(acpSessionId, (session) => memory.rootOfChild(session) ?? session);
    memory.forget(acpSessionId);
  }

  /**
   * Qwen Code's background subagent ended (src/acp/shapes/qwen.ts): its launching call settles.
   * A call no longer remembered (forgotten, evicted, launched before this recognizer) still
   * gets a frame with the status: the upsert keeps every field an earlier frame wrote.
   */
  function observeQwenCompletion(sessionId: string, update: Json): RecognizedSubagentUpdate | undefined {
    const done = readQwenBackgroundCompletion(update);
    if (!done) return undefined;
    const root = memory.rootOf(sessionId);
    const id = sessionCallId(root, sessionId, done.toolCallId);
    const state = memory.call(root, id);
    if (!state) return { acpSessionId: root, toolCallId: id, parentToolCallId: null, toolStatus: done.toolStatus, payload: done.payload };
    mergePayload(state.payload, done.payload);
    const result = snapshot(root, id, state, done.toolStatus);
    const ended = isTerminalToolStatus(done.toolStatus);
    // The notice can precede the launch's own end: the state then waits for that end
    // (observeToolCall), or that late frame would make a new one that nothing settles.
    if (ended && state.callEnded) memory.drop(root, id, state.key);
    else {
      if (ended) state.subagentEnded = true;
      memory.remember(root, id, state);
    }
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
        if (kind === 'tool_call' || kind === 'tool_call_update') return observeToolCall(sessionId, notification, kind === 'tool_call');
        if (kind === 'subagent_update') return observeSubagentUpdate(sessionId, notification);
        if ((kind === 'state_update' || kind === 'session_info_update') && memory.hasChildren()) return observeChildSession(sessionId, kind, notification);
        if (kind === 'agent_message_chunk' && qwenCompletions) return observeQwenCompletion(sessionId, notification);
        return undefined;
      } catch {
        // A hostile object (a throwing getter, a revoked proxy): not a readable update.
        return undefined;
      }
    },
    observeRequest(method: string, params: object): RecognizedSubagentUpdate | undefined {
      try {
        const p = object(params);
        return typeof method === 'string' && p ? observeRequest(method, p) : undefined;
      } catch {
        return undefined;
      }
    },
    forget,
    size: () => memory.size() + heldRequests.size,
  };
}
