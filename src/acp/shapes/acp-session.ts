// A tool call that names its child session in a `session` content item (ACP Subagent Sessions,
// Completed 2026-11-20: `{type: "session", sessionId}`) launches a subagent, whatever agent
// sends it: the protocol's own word, no per-agent knowledge needed. Asked after every agent's
// shape, so an agent whose shape reads more keeps its fields. The title is the description.
import { field, text } from '../wire.js';
import type { AgentShape } from './shape.js';
import { sessionContentChild } from './subagent-update.js';

export const acpSessionShape: AgentShape = {
  agent: 'acp',
  classify(update) {
    return sessionContentChild(update) !== undefined ? true : undefined;
  },
  read(update) {
    return { payload: { description: text(field(update, 'title')), child_session_id: sessionContentChild(update) } };
  },
};
