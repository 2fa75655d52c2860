// `subagent_update` (ACP's unstable `subagents` client capability). With it advertised, the
// newer Claude adapter sends no `Agent` tool calls at all: each subagent is a child session
// announced on its parent's session (`sessionId` = the child; `title`; `state: running → idle`).
// The child session id is the only identity it carries, so it is the tool-call identity and the
// child_session_id; the title is the description; Claude's adapter puts the agent type in
// `description`, read here as subagent_type. `idle` settles the row (`completed`); `running` is
// `in_progress`; any other state (requires_action, unknown) is status-less. A nested launch is
// announced on the launching child's own session.
import type { SubagentTaskPayload } from '../../types.js';
import { field, metric, object, text, type Json } from '../wire.js';

export interface SubagentUpdateFacts {
  childSessionId: string;
  toolStatus: string | null;
  payload: SubagentTaskPayload;
}

const TOOL_STATUS: Record<string, string> = { idle: 'completed', running: 'in_progress' };

export function readSubagentUpdate(update: Json): SubagentUpdateFacts | undefined {
  const child = text(field(update, 'sessionId'));
  if (child === undefined) return undefined;
  const state = object(field(update, 'state'));
  const stateName = text(field(state, 'state'));
  return {
    childSessionId: child,
    toolStatus: stateName !== undefined && Object.prototype.hasOwnProperty.call(TOOL_STATUS, stateName) ? TOOL_STATUS[stateName] : null,
    payload: {
      description: text(field(update, 'title')),
      subagent_type: text(field(update, 'description')),
      child_session_id: child,
      status: stateName,
      total_tokens: metric(field(field(state, 'usage'), 'totalTokens')),
    },
  };
}
