// ACP Subagent Sessions (the RFD, Completed 2026-11-20; clients opt in with the `subagents`
// client capability). Each subagent is a child session announced on its parent's session by
// `subagent_update` (`sessionId` = the child; `title`; `description`; `state`). With it
// advertised, the newer Claude adapter sends no `Agent` tool calls at all, so the child session
// id is the tool-call identity and the child_session_id — unless a tool call names the child in
// a `session` content item, which joins the two into one row (recognizer.ts).
//
// A patch: an omitted field is unchanged and `null` clears it on the wire; a stored column is
// never blanked (the spec's AC-4), so `null` reads as "nothing new"; a patch of a known child
// with nothing a row holds (Codex's `capabilities: {cancel: null}` after idle) writes nothing.
// The title is the description; Claude's adapter puts the agent type in `description` beside a
// title, read as subagent_type when it is one identifier there; anything else (Codex: the
// spawn's prompt, with no title, one word or many) is the prompt.
//
// States (a whole-object snapshot each): `running` → tool status `in_progress`; `idle` settles
// the row, as its `stopReason` says (`cancelled` → `cancelled`, `error` and `refusal` →
// `failed`, anything else or none → `completed`); `requires_action`, `unknown` and custom
// (`_`-prefixed or future) states are not terminal: status-less. The state's name is stored
// verbatim as the agent status. A child is reusable (`idle → running` again): the row settles
// at its first `idle` and stays settled (tool status and settled_at freeze, AC-12), while the
// agent status and the fields follow every later report (docs/acp-intake.md, "Reuse").
//
// ACP v2 moves the child's state onto the child session's own `state_update` (same snapshot,
// flattened into the update) and its title onto `session_info_update`: readChildState and
// readChildInfo read those.
import type { SubagentTaskPayload } from '../../types.js';
import { field, metric, object, text, type Json } from '../wire.js';

export interface SubagentUpdateFacts {
  childSessionId: string;
  toolStatus: string | null;
  payload: SubagentTaskPayload;
}

const IDLE_STATUS: Record<string, string> = { cancelled: 'cancelled', error: 'failed', refusal: 'failed' };

/** The tool status and payload of one state snapshot (`{state, stopReason?, usage?}`). */
export function readState(state: Json | undefined): { toolStatus: string | null; payload: SubagentTaskPayload } {
  const name = text(field(state, 'state'));
  let toolStatus: string | null = null;
  if (name === 'running') toolStatus = 'in_progress';
  else if (name === 'idle') {
    const stop = text(field(state, 'stopReason'));
    toolStatus = stop !== undefined && Object.prototype.hasOwnProperty.call(IDLE_STATUS, stop) ? IDLE_STATUS[stop] : 'completed';
  }
  return { toolStatus, payload: { status: name, total_tokens: metric(field(field(state, 'usage'), 'totalTokens')) } };
}

/** An agent type is one identifier (`general-purpose`, `Explore`); anything else in `description` is a sentence (Codex: the prompt). */
const AGENT_TYPE = /^[\w.:-]{1,64}$/;

export function readSubagentUpdate(update: Json): SubagentUpdateFacts | undefined {
  const child = text(field(update, 'sessionId'));
  if (child === undefined) return undefined;
  const { toolStatus, payload } = readState(object(field(update, 'state')));
  const description = text(field(update, 'description'));
  const title = text(field(update, 'title'));
  // Claude's adapter announces a child with both: the title (its task) and the type. Codex sends
  // the spawn's prompt as the description and no title, and a prompt can be one word.
  const isType = description !== undefined && title !== undefined && AGENT_TYPE.test(description);
  // Spelled out, not `{ ...payload, description, … }`: on Node 20's V8 a key added after a
  // spread costs about a microsecond per object (measured: 1.3 us against 0.01 us for the
  // same object spelled out), which made this the recognizer's most expensive line.
  return {
    childSessionId: child,
    toolStatus,
    payload: {
      status: payload.status,
      total_tokens: payload.total_tokens,
      description: title,
      subagent_type: isType ? description : undefined,
      prompt: isType ? undefined : description,
      child_session_id: child,
    },
  };
}

/** A patch that says nothing a row holds (only `capabilities`, `cwd`, `_meta`, or nulls): nothing to write for a known child. */
export function saysNothing(update: Json): boolean {
  return text(field(update, 'title')) === undefined && text(field(update, 'description')) === undefined && object(field(update, 'state')) === undefined;
}

/** ACP v2: a child's own `state_update` (the snapshot's fields are the update's). */
export function readChildState(update: Json): { toolStatus: string | null; payload: SubagentTaskPayload } | undefined {
  if (text(field(update, 'state')) === undefined) return undefined;
  return readState(update);
}

/** A child's own `session_info_update`: its title, the row's description. */
export function readChildInfo(update: Json): SubagentTaskPayload | undefined {
  const title = text(field(update, 'title'));
  return title === undefined ? undefined : { description: title };
}

/** The child session a tool call's `session` content item names (ACP Subagent Sessions), if any. */
export function sessionContentChild(update: Json): string | undefined {
  const content = field(update, 'content');
  if (!Array.isArray(content)) return undefined;
  for (const item of content as unknown[]) {
    if (field(item, 'type') === 'session') {
      const child = text(field(item, 'sessionId'));
      if (child !== undefined) return child;
    }
  }
  return undefined;
}
