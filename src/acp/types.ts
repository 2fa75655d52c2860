// The public types of `subagent-context/acp` (DESIGN §10). Names here are a contract: keep them.
// Structural only: the entry depends on no ACP SDK; a host passes the notification params it has.
import type { Logger, RecordOptions, RecordOutcome, SubagentTaskPayload, SubagentUsage } from '../types.js';

/** The params of an ACP `session/update` notification (agent → client), as any SDK delivers them. */
export interface AcpSessionUpdateParams {
  sessionId: string;
  update: object;
}

/** What the wire says about one subagent invocation; the identity the wire lacks is the host's. */
export interface RecognizedSubagentUpdate {
  acpSessionId: string;
  /** The ACP toolCallId; for a `subagent_update` (the `subagents` capability), the child session id. */
  toolCallId: string;
  /** The launching tool call when a subagent launched this one (Claude Code's nested `Agent`). */
  parentToolCallId: string | null;
  /** The ACP status verbatim; null on a status-less update. */
  toolStatus: string | null;
  /** Accumulated: everything learned so far for this call (a snapshot, safe to keep). */
  payload: SubagentTaskPayload;
  /**
   * Only on an update that reports it: the subagent's usage summed over its whole run, with
   * the split the usage ledger keeps (Qwen Code's executionSummary; no other agent's wire has
   * one). Not accumulated across updates: a frame carrying it sets the ledger row to it.
   */
  usage?: SubagentUsage;
}

export interface SubagentRecognizer {
  /** undefined when the update is not (or not yet known to be) part of a subagent invocation. Never throws. */
  observe(params: AcpSessionUpdateParams): RecognizedSubagentUpdate | undefined;
  /**
   * An agent → client request that carries subagent metadata: Cursor's `cursor/task`
   * `{toolCallId, agentId, description, model, prompt}`, joined to its Task call by toolCallId
   * (held until the call is seen when the request comes first). undefined for any other
   * request, or one whose call is not known yet. Never throws.
   */
  observeRequest(method: string, params: object): RecognizedSubagentUpdate | undefined;
  /** Drops every call remembered for that ACP session (call it at session end). */
  forget(acpSessionId: string): void;
  /**
   * How many entries (tool calls, child sessions of the `subagents` capability, the joins between
   * them, and cursor/task requests held for a call not seen yet) are remembered now.
   */
  size(): number;
}

export interface SubagentRecognizerOptions {
  /** Most tool calls remembered per ACP session; the least recently seen is dropped beyond it. Default 1024. */
  maxCallsPerSession?: number;
  /** Most tool calls remembered across all sessions. Default 65 536. */
  maxCalls?: number;
  /**
   * Called once per distinct tool call (or malformed subagent_update) that looks like a
   * delegation — its kind, title, tool name or `_meta` mention an agent, a subagent, a
   * delegation or a spawn — but that no known agent's shape matches: the recognizer is blind to
   * that agent's subagents. Never called for ACP's ordinary kinds (read, edit, execute, search, …).
   */
  onUnrecognizedDelegation?(delegation: UnrecognizedDelegation): void;
}

/** A tool call that looks like a delegation no shape recognizes (SubagentRecognizerOptions.onUnrecognizedDelegation). */
export interface UnrecognizedDelegation {
  acpSessionId: string;
  /** The toolCallId (`'subagent_update'` for a subagent_update without a child session id). */
  id: string;
  /** The tool call's title, when it has one. */
  title: string | null;
  /** What made it look like a delegation: `title`, `kind "…"`, `tool name "…"` or `_meta`. */
  reason: string;
}

/** The host's identity for an ACP session: what the wire does not carry. */
export interface AcpHostContext {
  sessionId: string;
  taskId: string;
  executionId?: string | null;
  turnId?: string | null;
}

export interface AcpRecorderOptions {
  /** The host's session, task, execution and current turn for an ACP session; undefined when unknown. */
  context(acpSessionId: string): AcpHostContext | undefined | Promise<AcpHostContext | undefined>;
  /** WARN on a context that throws or times out. Default: the store's silence (none). */
  logger?: Logger;
  /**
   * A context that has not answered by then fails that update (`'failed'`). Default 5000 ms (also
   * for NaN); `Infinity`, or more than setTimeout's 2^31 - 1 ms, waits as long as the context takes.
   */
  contextTimeoutMs?: number;
  recognizer?: SubagentRecognizerOptions;
}

/** What the recorder did with the updates it was given (a snapshot). */
export interface AcpRecorderCounters {
  /** Updates handed to sessionUpdate. */
  updates: number;
  /** Not (or not yet known to be) part of a subagent invocation: resolved undefined. */
  not_subagent: number;
  /** Recognized and handed to the store. */
  recorded: number;
  /** Recognized, but `context` returned no identity: the store counted them skipped_no_identity. */
  unknown_session: number;
  /** Recognized, but `context` threw or rejected: 'failed'. */
  context_failed: number;
  /** Recognized, but `context` did not answer within contextTimeoutMs: 'failed'. */
  context_timeout: number;
  /**
   * Distinct tool calls (or malformed subagent_updates) that look like a delegation but match
   * no known agent's shape: subagents this recorder cannot see. Each also logs one WARN per
   * distinct title. Not 0: an agent or agent version this package does not know yet.
   */
  unrecognized_delegations: number;
  /** Agent → client requests handed to agentRequest. */
  requests: number;
}

export interface AcpRecorder {
  /**
   * Never rejects. undefined: not a subagent update (nothing written). Otherwise the store's
   * outcome for the one frame written, `'skipped_no_identity'` when `context` knows no such
   * session, `'failed'` when `context` threw or timed out. Updates of one ACP session are
   * written in the order they were given, whatever the caller awaits.
   */
  sessionUpdate(params: AcpSessionUpdateParams, options?: RecordOptions): Promise<RecordOutcome | undefined>;
  /**
   * An agent → client JSON-RPC request (method and params, as the client received it). Cursor's
   * `cursor/task` joins its model and agent id to the Task call's row; any other method is
   * undefined. Never rejects; the same outcomes as sessionUpdate, in the same per-session order.
   */
  agentRequest(method: string, params: object, options?: RecordOptions): Promise<RecordOutcome | undefined>;
  /** Resolves once every update given so far has been written (a host that did not await them: before reading rows, or at shutdown). Never rejects. */
  flush(): Promise<void>;
  /** Drops the recognizer's state for that ACP session (call it at session end, after its last update). */
  forget(acpSessionId: string): void;
  counters(): AcpRecorderCounters;
}
