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
// most META_BUDGET entries, keys and short strings only. No closure is made per call: under a
// keep-names transpiler (tsx, esbuild) each one costs a defineProperty, more than the regexes.
import type { AgentShape } from './shapes/shape.js';
import { clip } from '../clip-text.js';
import { field, object, text, type Json } from './wire.js';

const ORDINARY_KINDS = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'switch_mode']);

/** One of ACP's ordinary tool kinds: a file, command or search tool, never a delegation. */
export function ordinaryKind(kind: unknown): boolean {
  return typeof kind === 'string' && ORDINARY_KINDS.has(kind);
}
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

/**
 * The part of a tool's name that says what it does: an MCP tool is `mcp__<server>__<tool>`
 * (Claude Code's naming), and a server named for what it serves (`agent-browser`) launches no agent.
 */
function toolPart(name: string): string {
  const end = name.startsWith('mcp__') ? name.indexOf('__', 5) : -1;
  return end > 0 ? name.slice(end + 2) : name;
}

/**
 * A value named in a reason, quoted and cut to META_STRING_MAX characters: the reason is logged
 * and remembered (one WARN per distinct title-less delegation), and an agent's strings are its
 * data.
 */
function quoted(value: string): string {
  return JSON.stringify(value.length <= META_STRING_MAX ? value : `${clip(value, META_STRING_MAX)}…`);
}

/** `tool name "…"` when a tool's name mentions a delegation and is not one of the agent's ordinary tools. */
function judgeToolName(name: string | undefined, ordinary: ReadonlySet<string> | undefined): string | undefined {
  return name !== undefined && !ordinary?.has(name) && mentionsDelegation(toolPart(name)) ? `tool name ${quoted(name)}` : undefined;
}

/** A delegation named where agents put a tool's name: `_meta.<agent>.toolName`, `_meta.toolName`, `rawInput._toolName`. */
function toolNameMention(meta: Json | undefined, input: unknown, ordinary: ReadonlySet<string> | undefined): string | undefined {
  if (meta) {
    const found = judgeToolName(text(field(meta, 'toolName')), ordinary);
    if (found) return found;
    for (const key in meta) {
      const inner = field(meta, key);
      if (inner !== null && typeof inner === 'object') {
        const name = judgeToolName(text(field(inner, 'toolName')), ordinary);
        if (name) return name;
      }
    }
  }
  return input === undefined ? undefined : judgeToolName(text(field(input, '_toolName')), ordinary);
}

/** A key or a short string value of `_meta`, two levels deep, that mentions a delegation. */
function metaMentions(meta: Json): boolean {
  return visitMeta(meta, 1, { left: META_BUDGET });
}

function visitMeta(obj: Json, depth: number, budget: { left: number }): boolean {
  for (const key of Object.keys(obj)) {
    if (--budget.left < 0) return false;
    if (mentionsDelegation(key)) return true;
    const value = obj[key];
    if (typeof value === 'string') {
      if (value.length <= META_STRING_MAX && mentionsDelegation(value)) return true;
    } else if (depth < 2) {
      const inner = object(value);
      if (inner && visitMeta(inner, depth + 1, budget)) return true;
    }
  }
  return false;
}

/**
 * Why a tool call no shape claimed looks like a delegation, or undefined when it does not.
 * `first`: the call's `tool_call` (its first frame); `known`: the shape that recognised the agent and said this call is not a
 * subagent. Then only the tool names are judged, the agent's own name for it included (`toolNameOf`), and its
 * `ordinaryToolNames` (Claude's `SubagentHandback`, say) are its tools that only mention an agent.
 */
export function delegationLookalike(update: Json, first: boolean, known?: AgentShape): string | undefined {
  // Most updates are a later status of an ordinary call: out before any field is read (`in`
  // also sees inherited keys, so it only lets more through to the own-property reads below).
  if (!first && !('kind' in update) && !('title' in update)) return undefined;
  const kind = text(field(update, 'kind'));
  if (ordinaryKind(kind)) return undefined;
  const title = text(field(update, 'title'));
  // A later update that names no kind and no title says nothing new of what its call is: the
  // call was judged on its first frame (where an agent names its tool), or it is a status.
  if (!first && kind === undefined && title === undefined) return undefined;
  const meta = object(field(update, '_meta'));
  const input = field(update, 'rawInput');
  if (kind === undefined && title === undefined && meta === undefined && input === undefined) return undefined;
  const ordinary = known?.ordinaryToolNames;
  const named = toolNameMention(meta, input, ordinary) ?? judgeToolName(known?.toolNameOf?.(update), ordinary);
  if (named !== undefined || known) return named;
  if (mentionsDelegation(kind)) return `kind ${quoted(kind!)}`;
  // A later frame's title without a kind is its tool's result or description (OpenCode titles a
  // completed read with the file it read, "AGENTS.md"): only a first frame's title, or one beside
  // a kind, names what the call is.
  if ((first || kind !== undefined) && mentionsDelegation(title)) return 'title';
  if (meta && metaMentions(meta)) return '_meta';
  // Last: an id that names the tool (Gemini's `invoke_agent__…`, on a refusal's untitled frame).
  const id = text(field(update, 'toolCallId'));
  if (id !== undefined && id.length <= META_STRING_MAX && mentionsDelegation(id)) return 'tool call id';
  return undefined;
}
