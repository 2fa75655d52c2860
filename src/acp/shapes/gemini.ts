// Gemini CLI (`gemini --acp`). Measured on real runs of 0.61.0 (recordings/acp/gemini-*.jsonl):
// - a subagent is a call of the tool `invoke_agent`, whose id the CLI builds as
//   `invoke_agent__<id>` (its own `<tool>__<tool>_<ms>_<n>` when the model gave none), kind
//   `think` (ACP has no kind for an agent), title `Delegating to agent '<name>'` (the name is
//   the subagent type: `generalist`, `codebase_investigator`, a user's own agent);
// - `tool_call` `in_progress`, then one `tool_call_update` `completed` with `content: []`: no
//   rawInput (so no prompt), no `_meta`, no usage, no model, no agent id, no child session;
// - a refused launch (the default approval mode refuses every subagent) is ONE `tool_call_update`
//   `failed`, never announced, with no title: only the id and the kind say what it was; the
//   reason ("Tool execution for "Generalist Agent" denied by policy.") is its content text.
// The CLI gives subagents no `invoke_agent`, so there is no nesting, and no background launch.
// Its ordinary tool calls (`read_file__read_file_<ms>_<n>`, …) are claimed as not subagents, so
// no later shape takes a Gemini `read_file` of a file named `task` for an OpenCode launch.
import { contentText, field, text } from '../wire.js';
import type { AgentShape } from './shape.js';

const TOOL = 'invoke_agent';
const TITLE_PREFIX = "Delegating to agent '";

/** `invoke_agent__…` (the model's turn) or `invoke_agent-…` (a call the CLI numbers itself). */
function isDelegationId(id: string): boolean {
  return id.startsWith(TOOL) && (id.startsWith('__', TOOL.length) || id.charAt(TOOL.length) === '-');
}

/** `<tool>__<tool>_<ms>_<n>`: the id Gemini CLI gives a tool call the model left unnamed → tool. Linear, no regex backtracking. */
function geminiToolOf(id: string): string | undefined {
  const sep = id.indexOf('__');
  if (sep <= 0) return undefined;
  const tool = id.slice(0, sep);
  const rest = id.slice(sep + 2);
  if (!rest.startsWith(`${tool}_`)) return undefined;
  const [ms, n, extra] = rest.slice(tool.length + 1).split('_', 3);
  return extra === undefined && /^\d{1,16}$/.test(ms) && /^\d{1,16}$/.test(n ?? '') ? tool : undefined;
}

/** `Delegating to agent '<name>'` → name. */
function agentName(title: unknown): string | undefined {
  if (typeof title !== 'string' || !title.startsWith(TITLE_PREFIX) || !title.endsWith("'")) return undefined;
  return text(title.slice(TITLE_PREFIX.length, -1));
}

export const geminiShape: AgentShape = {
  agent: 'gemini',
  classify(update) {
    const id = text(field(update, 'toolCallId'));
    if (id === undefined) return undefined;
    if (isDelegationId(id)) return field(update, 'kind') === 'think' || agentName(field(update, 'title')) !== undefined ? true : undefined;
    return geminiToolOf(id) !== undefined ? false : undefined;
  },
  // A renamed delegation tool (0.5x's `delegate_to_agent`, say) is named in the id: reported, not taken for an ordinary tool.
  toolNameOf(update) {
    const id = text(field(update, 'toolCallId'));
    return id === undefined ? undefined : geminiToolOf(id);
  },
  read(update) {
    return {
      payload: {
        subagent_type: agentName(field(update, 'title')),
        // Only a refusal or an error carries text; a finished subagent's answer is not on the wire.
        result_text: contentText(field(update, 'content')),
      },
    };
  },
};
