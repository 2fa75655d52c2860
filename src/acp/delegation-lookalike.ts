// "Never blind in silence" (DESIGN §10.1): a tool call that no shape claims but that looks like a
// delegation — the next agent's subagent tool, or a known agent's renamed one — is reported, so
// a host is told it is blind instead of "healthy, 0 subagents".
//
// Looks like a delegation: its title, kind, tool name or tool-call id has a word meaning agent,
// subagent, delegation or spawn, or its `_meta` has such a key or names such a tool. Never: a call of one
// of ACP's ordinary kinds (read, edit, delete, move, search, execute, fetch, switch_mode), whose
// titles name files and commands ("Read AGENTS.md") and are not delegations whatever they say.
// When a shape knows the agent (its classify said false), only the tool name it names is judged:
// that shape knows the layout of its own `_meta` better than any word search.
//
// Cost on ordinary traffic: a call is judged by one case-insensitive regex test per string
// (title, tool names); only a hit is split into words. `_meta` is walked two levels deep and at
// most META_BUDGET entries, keys and short strings only.
import { field, object, text, type Json } from './wire.js';

const ORDINARY_KINDS = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'switch_mode']);
const HINT = /agent|delegat|spawn/i;
const WORDS = new Set([
  'agent',
  'agents',
  'subagent',
  'subagents',
  'delegate',
  'delegates',
  'delegated',
  'delegating',
  'delegation',
  'spawn',
  'spawns',
  'spawned',
  'spawning',
]);
const META_BUDGET = 64;
const META_STRING_MAX = 128;

/** Words of an identifier or a sentence: camelCase, snake_case, kebab-case and spaces split, lower-cased. */
function words(value: string): string[] {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** `sub-agent`, `sub agent` and `sub_agent` read as one word. */
function mentionsDelegation(value: string | undefined): boolean {
  if (value === undefined || !HINT.test(value)) return false;
  const w = words(value);
  return w.some((word, i) => WORDS.has(word) || (word === 'sub' && w[i + 1] === 'agent'));
}

/** The tool names an update carries where agents put them: `_meta.<agent>.toolName`, `_meta.toolName`, `rawInput._toolName`. */
function toolNames(update: Json): string[] {
  const names: string[] = [];
  const meta = object(field(update, '_meta'));
  if (meta) {
    const own = text(field(meta, 'toolName'));
    if (own !== undefined) names.push(own);
    for (const key of Object.keys(meta)) {
      const name = text(field(field(meta, key), 'toolName'));
      if (name !== undefined) names.push(name);
    }
  }
  const inputName = text(field(field(update, 'rawInput'), '_toolName'));
  if (inputName !== undefined) names.push(inputName);
  return names;
}

/** A key or a short string value of `_meta`, two levels deep, that mentions a delegation. */
function metaMentions(update: Json): boolean {
  const meta = object(field(update, '_meta'));
  if (!meta) return false;
  let budget = META_BUDGET;
  const visit = (obj: Json, depth: number): boolean => {
    for (const key of Object.keys(obj)) {
      if (--budget < 0) return false;
      if (mentionsDelegation(key)) return true;
      const value = obj[key];
      if (typeof value === 'string') {
        if (value.length <= META_STRING_MAX && mentionsDelegation(value)) return true;
      } else if (depth < 2) {
        const inner = object(value);
        if (inner && visit(inner, depth + 1)) return true;
      }
    }
    return false;
  };
  return visit(meta, 1);
}

/** Why a tool call no shape claimed looks like a delegation, or undefined when it does not. */
/**
 * `knownAgent`: a shape recognised the agent and said this call is not a subagent; its
 * `ordinary` names (Claude's `SubagentHandback`, say) are its tools that only mention an agent.
 */
export function delegationLookalike(update: Json, knownAgent: boolean, ordinary?: ReadonlySet<string>): string | undefined {
  const kind = text(field(update, 'kind'));
  if (kind !== undefined && ORDINARY_KINDS.has(kind)) return undefined;
  for (const name of toolNames(update)) if (!ordinary?.has(name) && mentionsDelegation(name)) return `tool name ${JSON.stringify(name)}`;
  if (knownAgent) return undefined;
  const title = text(field(update, 'title'));
  // A bare status update says nothing of what its call is (a shape may have judged its first frame).
  if (kind === undefined && title === undefined && field(update, '_meta') === undefined && field(update, 'rawInput') === undefined) return undefined;
  if (mentionsDelegation(kind)) return `kind ${JSON.stringify(kind)}`;
  if (mentionsDelegation(title)) return 'title';
  if (metaMentions(update)) return '_meta';
  // Last: an id that names the tool (Gemini's `invoke_agent__…`, on a refusal's untitled frame).
  const id = text(field(update, 'toolCallId'));
  if (id !== undefined && id.length <= META_STRING_MAX && mentionsDelegation(id)) return 'tool call id';
  return undefined;
}
