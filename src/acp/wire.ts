// Reading agent-supplied JSON without trusting it: own properties only (a polluted prototype
// or a `__proto__` key never fabricates a field), no getters assumed safe (callers guard), and
// a value of the wrong type reads as absent.
const hasOwn = Object.prototype.hasOwnProperty;

export type Json = Record<string, unknown>;

/**
 * `obj[key]` when it is an own property, else undefined. Read first and checked only when
 * something was read: most fields asked for are absent, and then one lookup is all it costs
 * (this runs about twenty times an update). What it returns is as an own-property test first
 * would give; only a hostile object (a getter or Proxy trap on its prototype) sees its trap run.
 */
export function field(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const value = (obj as Json)[key];
  return value !== undefined && hasOwn.call(obj, key) ? value : undefined;
}

export function object(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A non-empty string, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A number or bigint as reported (validity is the store's and the merge's business), else undefined. */
export function metric(value: unknown): number | bigint | undefined {
  return typeof value === 'number' || typeof value === 'bigint' ? value : undefined;
}

export function bool(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** The text of ACP tool-call content: `[{type:'content', content:{type:'text', text}}]`, joined. */
export function contentText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const item of content) {
    const inner = field(item, 'content') ?? item;
    const t = field(inner, 'type') === 'text' ? text(field(inner, 'text')) : undefined;
    if (t !== undefined) parts.push(t);
  }
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * The first `max` UTF-16 units of an agent's string as a string of its own: never ending in half
 * a surrogate pair (it would print as U+FFFD), and copied, since V8 makes a `slice` a view that
 * keeps the whole string alive, and a clip is made to be remembered or logged without it.
 */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = value.charCodeAt(max - 1) >= 0xd800 && value.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return Buffer.from(value.slice(0, end), 'utf16le').toString('utf16le');
}
