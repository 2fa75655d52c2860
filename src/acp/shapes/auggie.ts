// Auggie: a subagent call's title is `sub-agent-<type>: <description>`, kind `other` (a later
// update without it never claims a call: a shell command can be titled so), with no `_meta` and
// no `rawInput`; the result text is in `rawOutput.output`. Auggie's model loop is a private API,
// so these shapes come from the measurements (test/acp-cursor-auggie.test.ts).
import type { SubagentTaskPayload } from '../../types.js';
import { contentText, field, object, text } from '../wire.js';
import type { AgentShape } from './shape.js';

const PREFIX = 'sub-agent-';

/** `sub-agent-<type>: <description>` → type and description; indexOf, not a regex: titles may be huge. */
function parseTitle(title: unknown): { type: string; description?: string } | undefined {
  if (typeof title !== 'string' || !title.startsWith(PREFIX)) return undefined;
  const colon = title.indexOf(':', PREFIX.length);
  if (colon <= PREFIX.length) return undefined;
  const type = title.slice(PREFIX.length, colon);
  if (/\s/.test(type)) return undefined;
  return { type, description: text(title.slice(colon + 1).trim()) };
}

export const auggieShape: AgentShape = {
  agent: 'auggie',
  classify(update) {
    // A command or a file can be named `sub-agent-…: …` too, and a later update of it may carry
    // the title without its kind: only a frame of Auggie's own kind for it claims the call, or a
    // `tool_call` that names no kind (`other` is the schema's default there).
    const kind = field(update, 'kind');
    const own = kind === 'other' || (kind === undefined && field(update, 'sessionUpdate') === 'tool_call');
    return own && parseTitle(field(update, 'title')) ? true : undefined;
  },
  read(update) {
    const title = parseTitle(field(update, 'title'));
    const payload: SubagentTaskPayload = {
      subagent_type: title?.type,
      description: title?.description,
      result_text: text(field(object(field(update, 'rawOutput')), 'output')) ?? contentText(field(update, 'content')),
    };
    return { payload };
  },
};
