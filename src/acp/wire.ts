// Reading agent-supplied JSON without trusting it: own properties only (a polluted prototype
// or a `__proto__` key never fabricates a field), no getters assumed safe (callers guard), and
// a value of the wrong type reads as absent.
const hasOwn = Object.prototype.hasOwnProperty;

export type Json = Record<string, unknown>;

/**
 * `obj[key]` when it is an own property, else undefined. Ownership is tested before the read, so
 * a getter or Proxy trap for a key the update does not carry never runs: reading first (one
 * lookup for an absent field) let a throwing inherited getter or a strict Proxy fail a real
 * subagent update (a review, 2026-12-07).
 */
export function field(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  return hasOwn.call(obj, key) ? (obj as Json)[key] : undefined;
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
