// Reads the tee's copy of the JSON-RPC traffic and supplies the identity the wire does not
// carry, the way a host would (issue 21): one task_sessions row per ACP session (task = the
// session's cwd, or --task), one execution per proxy run, and one turn per session/prompt
// request — a new UUID, current from the request until its response. Every agent → client
// session/update (and agent → client request: Cursor's cursor/task) goes through the
// recognizer; each recognized update becomes a write job
// carrying that identity. Pure bookkeeping: no I/O, and bounded (see MAX_*).
import { randomUUID } from 'node:crypto';
import type { SubagentTaskPayload, SubagentUsage } from '../types.js';
import type { RecognizedSubagentUpdate, SubagentRecognizer } from './recognizer.js';
import type { TeeLine } from './tee-queue.js';

export type WriteJob =
  | { kind: 'session'; sessionId: string; taskId: string }
  | {
      kind: 'subagent';
      sessionId: string;
      taskId: string;
      turnId: string | null;
      toolCallId: string;
      parentToolCallId: string | null;
      toolStatus: string | null;
      /** The last non-null ACP status seen for the call: the message row's metadata.status. */
      messageStatus: string | null;
      payload: SubagentTaskPayload;
      /** The subagent's summed usage, on the update that reports it (the usage ledger's row; not in the message row). */
      usage?: SubagentUsage;
    };

/** Requests awaiting their response; a client that never gets one must not grow the map. */
const MAX_PENDING = 10_000;
/** Tool calls whose first turn and last status are remembered (oldest forgotten first). */
const MAX_CALLS = 100_000;

type Pending = { kind: 'new'; cwd: string | null } | { kind: 'prompt'; sessionId: string; turnId: string };
type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const idKey = (id: unknown): string | undefined => (typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined);

function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export interface AcpIdentityOptions {
  recognizer: SubagentRecognizer;
  /** --task: every session's task; otherwise the session's cwd (then the proxy's own cwd). */
  task?: string;
  fallbackCwd: string;
}

export class AcpIdentity {
  private readonly pending = new Map<string, Pending>();
  private readonly tasks = new Map<string, string>(); // ACP session id → task id
  private readonly turns = new Map<string, string>(); // ACP session id → current turn
  private readonly calls = new Map<string, { turnId: string | null; status: string | null }>();

  constructor(private readonly options: AcpIdentityOptions) {}

  /** Write jobs for one line; a line that is not JSON, or not JSON-RPC we track, yields none. */
  observe(line: TeeLine): WriteJob[] {
    let message: Json | undefined;
    try {
      message = obj(JSON.parse(Buffer.from(line.bytes.buffer, line.bytes.byteOffset, line.bytes.byteLength).toString('utf8')));
    } catch {
      return [];
    }
    if (!message) return [];
    return line.direction === 0 ? this.fromClient(message) : this.fromAgent(message);
  }

  private taskFor(cwd: string | null): string {
    return this.options.task ?? cwd ?? this.options.fallbackCwd;
  }

  private session(sessionId: string, cwd: string | null): WriteJob[] {
    if (this.tasks.has(sessionId)) return [];
    const taskId = this.taskFor(cwd);
    remember(this.tasks, sessionId, taskId, MAX_CALLS);
    return [{ kind: 'session', sessionId, taskId }];
  }

  private fromClient(m: Json): WriteJob[] {
    const params = obj(m.params);
    const key = idKey(m.id);
    switch (m.method) {
      case 'session/new':
        if (key) remember(this.pending, key, { kind: 'new', cwd: str(params?.cwd) ?? null }, MAX_PENDING);
        return [];
      case 'session/load': {
        const sessionId = str(params?.sessionId);
        return sessionId ? this.session(sessionId, str(params?.cwd) ?? null) : [];
      }
      case 'session/prompt': {
        const sessionId = str(params?.sessionId);
        if (!sessionId) return [];
        const turnId = randomUUID();
        this.turns.set(sessionId, turnId);
        if (key) remember(this.pending, key, { kind: 'prompt', sessionId, turnId }, MAX_PENDING);
        return [];
      }
      default:
        return [];
    }
  }

  private fromAgent(m: Json): WriteJob[] {
    if (m.method === 'session/update') return this.update(obj(m.params));
    if (typeof m.method === 'string') {
      // An agent → client request: Cursor's `cursor/task` carries its Task call's model and agent id.
      const params = obj(m.params);
      return params ? this.recognized(this.options.recognizer.observeRequest(m.method, params)) : [];
    }
    const key = idKey(m.id);
    const pending = key === undefined ? undefined : this.pending.get(key);
    if (!pending || key === undefined) return [];
    this.pending.delete(key);
    if (pending.kind === 'prompt') {
      if (this.turns.get(pending.sessionId) === pending.turnId) this.turns.delete(pending.sessionId);
      return [];
    }
    const sessionId = str(obj(m.result)?.sessionId);
    return sessionId ? this.session(sessionId, pending.cwd) : [];
  }

  private update(params: Json | undefined): WriteJob[] {
    const sessionId = str(params?.sessionId);
    const update = obj(params?.update);
    if (!sessionId || !update) return [];
    return this.recognized(this.options.recognizer.observe({ sessionId, update }));
  }

  private recognized(recognized: RecognizedSubagentUpdate | undefined): WriteJob[] {
    if (!recognized) return [];
    // The recognizer names the session the subagent belongs to: with the `subagents`
    // capability a nested launch is announced on its parent subagent's child session, and
    // belongs to the root ACP session the client opened.
    const owner = recognized.acpSessionId;
    const jobs = this.session(owner, null); // an update on a session whose start the proxy missed
    const callKey = `${owner}\u0000${recognized.toolCallId}`;
    const known = this.calls.get(callKey);
    const call = {
      turnId: known ? known.turnId : (this.turns.get(owner) ?? null), // the turn that launched it
      status: recognized.toolStatus ?? known?.status ?? null,
    };
    remember(this.calls, callKey, call, MAX_CALLS);
    jobs.push({
      kind: 'subagent',
      sessionId: owner,
      taskId: this.tasks.get(owner) ?? this.taskFor(null),
      turnId: call.turnId,
      toolCallId: recognized.toolCallId,
      parentToolCallId: recognized.parentToolCallId,
      toolStatus: recognized.toolStatus,
      messageStatus: call.status,
      payload: recognized.payload,
      ...(recognized.usage !== undefined ? { usage: recognized.usage } : {}),
    });
    return jobs;
  }
}
