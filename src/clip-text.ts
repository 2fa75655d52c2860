// Clipping text someone else wrote before it is kept or logged (an agent's title, a stored value
// repeated in an error): one helper, so no copy of it cuts a surrogate pair in half.

/**
 * The first `max` UTF-16 units of a string, as a string of its own: never ending in half
 * a surrogate pair (it would print as U+FFFD), and copied, since V8 makes a `slice` a view that
 * keeps the whole string alive, and a clip is made to be remembered or logged without it.
 */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = value.charCodeAt(max - 1) >= 0xd800 && value.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return Buffer.from(value.slice(0, end), 'utf16le').toString('utf16le');
}

/** `value` whole, or its first `max` units (clip) marked as cut, with its length: what a WARN or an error repeats. */
export function clipMarked(value: string, max: number): string {
  return value.length <= max ? value : `${clip(value, max)}… (${value.length} characters)`;
}
