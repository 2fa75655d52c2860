// INTERIM — replaced by subagent-context/acp's createSubagentRecognizer (issue 18) when it is
// merged. Recognizes only the plainest shapes (a tool call titled or named `task`/`Task`/`Agent`,
// its rawInput and its rawOutput.metadata), remembered per tool call, so the proxy's relay,
// identity and writer can be built and tested against the DESIGN §10 interface meanwhile.
import type { SubagentTaskPayload } from '../types.js';
import type { RecognizedSubagentUpdate, SubagentRecognizer } from './recognizer-interface.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const SUBAGENT_TOOLS = new Set(['task', 'Task', 'Agent']);

export function createInterimRecognizer(): SubagentRecognizer {
  const calls = new Map<string, Map<string, SubagentTaskPayload>>();
  return {
    observe({ sessionId, update }) {
      const u = obj(update);
      if (!u || (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update')) return undefined;
      const toolCallId = str(u.toolCallId);
      if (!toolCallId) return undefined;
      const session = calls.get(sessionId) ?? new Map<string, SubagentTaskPayload>();
      let payload = session.get(toolCallId);
      const meta = obj(obj(u._meta)?.claudeCode);
      if (!payload) {
        if (!SUBAGENT_TOOLS.has(str(meta?.toolName) ?? str(u.title) ?? '')) return undefined;
        payload = {};
        session.set(toolCallId, payload);
        calls.set(sessionId, session);
      }
      const input = obj(u.rawInput);
      for (const key of ['description', 'prompt', 'subagent_type'] as const) {
        const value = str(input?.[key]);
        if (value) payload[key] = value;
      }
      const metadata = obj(obj(u.rawOutput)?.metadata);
      const child = str(metadata?.sessionId);
      if (child) payload.child_session_id = child;
      const model = obj(metadata?.model);
      if (str(model?.providerID) && str(model?.modelID)) payload.model = `${str(model?.providerID)}/${str(model?.modelID)}`;
      if (metadata?.background === true) payload.is_async = true;
      const status = str(u.status) ?? null;
      const result: RecognizedSubagentUpdate = {
        acpSessionId: sessionId,
        toolCallId,
        parentToolCallId: str(meta?.parentToolUseId) ?? null,
        toolStatus: status,
        payload: { ...payload },
      };
      return result;
    },
    forget(acpSessionId) {
      calls.delete(acpSessionId);
    },
  };
}
