// Codex through @agentclientprotocol/codex-acp (2.6.0 over @openai/codex 0.166.0). Measured on
// real runs (recordings/acp/codex-*.jsonl); the adapter renders Codex's own items as tool calls
// (its src/tool-calls/reporters/CollabAgentReporter.ts and SubagentActivityReporter.ts):
// - multi_agent_v1 (the default tool set): a `spawn_agent` call is a collab item, title
//   `spawnAgent`, kind `other`, `rawInput {prompt, senderThreadId, receiverThreadIds,
//   agentsStates, model, reasoningEffort, status}`. The first frame has no receiver yet and
//   `model: ""`; the terminal one names the child thread in `receiverThreadIds` and its state in
//   `agentsStates[<thread>].status` (`pendingInit`), and the model. A spawn returns as soon as the
//   child exists (the parent waits for it with a separate `wait` call), so the row settles at
//   launch: is_async. The child thread id is both the child session and the id the parent
//   addresses it by (spawn_agent answers `{agent_id: <thread>}`), so it is agent_id too.
//   The other collab items (`wait`, `sendInput`, `resumeAgent`, `closeAgent`, `followupTask`)
//   carry the same rawInput and are not launches;
// - multi_agent_v2: no collab item for a spawn; a `subAgentActivity` item instead, title
//   `Start subagent <name>`, the spawn's call id, `rawInput {agentThreadId, agentPath,
//   activityKind: "started"}` and no prompt or model on the wire; `agentPath` (`/root/<task
//   name>`) is what the parent addresses it by, its last segment the task name the model chose.
//   `Complete|Interact with|Interrupt subagent <name>` are the same item's other kinds: not launches;
// - no usage on any of them (Codex reports the session's usage only, in `usage_update`), no
//   agent type (v1's spawn_agent takes none), no `_meta` for a client that is not JetBrains AIR.
// With the `subagents` client capability the adapter sends neither: each child is a
// `subagent_update` (src/acp/shapes/subagent-update.ts).
import type { SubagentTaskPayload } from '../../types.js';
import { field, object, text, type Json } from '../wire.js';
import type { AgentShape } from './shape.js';

/** A collab item's rawInput: it always has the sender thread and the receivers (CollabAgentReporter). */
function collabInput(update: Json): Json | undefined {
  const input = object(field(update, 'rawInput'));
  return input && text(field(input, 'senderThreadId')) !== undefined && Array.isArray(field(input, 'receiverThreadIds')) ? input : undefined;
}

/** A subAgentActivity item's rawInput (SubagentActivityReporter). */
function activityInput(update: Json): Json | undefined {
  const input = object(field(update, 'rawInput'));
  return input && text(field(input, 'agentThreadId')) !== undefined && text(field(input, 'activityKind')) !== undefined ? input : undefined;
}

/** The spawned child: a spawn names exactly one receiver, once it exists. */
function receiver(input: Json | undefined): string | undefined {
  const ids = field(input, 'receiverThreadIds');
  return Array.isArray(ids) ? text(ids[0]) : undefined;
}

function readSpawn(input: Json): SubagentTaskPayload {
  const child = receiver(input);
  const states = object(field(input, 'agentsStates'));
  return {
    prompt: text(field(input, 'prompt')),
    model: text(field(input, 'model')),
    child_session_id: child,
    agent_id: child,
    status: child === undefined ? undefined : text(field(field(states, child), 'status')),
    is_async: true,
  };
}

function readStart(input: Json): SubagentTaskPayload {
  const path = text(field(input, 'agentPath'));
  const name = path === undefined ? undefined : text(path.slice(path.lastIndexOf('/') + 1));
  return { description: name, agent_id: path, child_session_id: text(field(input, 'agentThreadId')), is_async: true };
}

/**
 * Codex's collab items and activity kinds that are not launches but mention an agent; any other
 * name that does (a renamed `spawn_agent`, an activity `spawned`) is reported as unrecognized.
 */
const ORDINARY_COLLAB_ITEMS: ReadonlySet<string> = new Set(['wait', 'sendInput', 'resumeAgent', 'closeAgent', 'followupTask']);

export const codexShape: AgentShape = {
  agent: 'codex',
  ordinaryToolNames: ORDINARY_COLLAB_ITEMS,
  classify(update) {
    if (collabInput(update)) return field(update, 'title') === 'spawnAgent';
    const activity = activityInput(update);
    if (activity) return field(activity, 'activityKind') === 'started';
    return undefined;
  },
  toolNameOf(update) {
    if (collabInput(update)) return text(field(update, 'title'));
    const activity = activityInput(update);
    return activity && text(field(activity, 'activityKind'));
  },
  read(update) {
    // Later frames of a call may carry no title; the rawInput says which item it is.
    const collab = collabInput(update);
    if (collab) return { payload: readSpawn(collab) };
    const activity = activityInput(update);
    return { payload: activity ? readStart(activity) : {} };
  },
};
