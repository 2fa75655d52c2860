// Strings from the database are data, not terminal commands: subagent_type, model, key values
// and the other labels come from agents and hosts, and an ESC, CSI, OSC or a bidi override in
// one of them would otherwise reach the terminal raw (retitle it, swallow the output after it,
// reverse the figures beside it). Every human renderer (report, health, migrate, demo, the
// HTML page) passes its text through visible(); JSON output never does, so it stays exact.
//
// A control is shown as an escape a person can read and type back: `\xNN` up to U+00FF, else
// `\uNNNN` (`\x1b` for ESC, `\u202e` for RIGHT-TO-LEFT OVERRIDE). Clipping works on grapheme
// clusters (Intl.Segmenter) of the visible text, so it never splits a surrogate pair, a
// combining sequence, or an escape it made.

// C0, DEL and C1 controls; the bidi embedding, override, isolate and mark characters; the
// line and paragraph separators (a terminal may break the line on them).
// eslint-disable-next-line no-control-regex -- matching control characters is this regex's job
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (cp: number, digits: number) => cp.toString(16).padStart(digits, '0');

/** Shows each control character of `text` as its escape; printable text stays as it is. */
export function visible(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const cp = c.codePointAt(0)!;
    return cp <= 0xff ? `\\x${hex(cp, 2)}` : `\\u${hex(cp, 4)}`;
  });
}

// Made on first use, not at import: building a Segmenter loads ICU's break rules, about 15 ms,
// and every process that imports the package (the CLI's `--version`, `proxy`, a host's boot)
// paid it before a single line was shown.
let graphemes: Intl.Segmenter | undefined;
const segmenter = () => (graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' }));

// East Asian wide and fullwidth characters and emoji take two terminal columns.
const WIDE =
  /\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/** Terminal columns of one printable grapheme. */
const columns = (grapheme: string) => (WIDE.test(grapheme) ? 2 : 1);
const ESCAPE = /^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4})$/;

/** The visible form of `text` as [grapheme, columns] units; an escape is one unit. Stops once past `limit` columns. */
function units(text: string, limit: number): { units: [string, number][]; overflow: boolean } {
  const out: [string, number][] = [];
  let used = 0;
  for (const { segment } of segmenter().segment(text)) {
    const shown = visible(segment);
    // A grapheme holding controls became escapes: each escape is its own unit, never cut.
    const parts = shown === segment ? [segment] : shown.split(/(\\x[0-9a-f]{2}|\\u[0-9a-f]{4})/).filter(Boolean);
    for (const part of parts) {
      const w = part !== segment && ESCAPE.test(part) ? part.length : columns(part);
      out.push([part, w]);
      used += w;
      if (used > limit) return { units: out, overflow: true };
    }
  }
  return { units: out, overflow: false };
}

/** Terminal columns `text` takes once made visible. */
export function displayWidth(text: string): number {
  return units(text, Infinity).units.reduce((t, [, w]) => t + w, 0);
}

/**
 * `text` made visible and clipped to at most `width` columns, ending in `…` when clipped.
 * Reads only as much of `text` as it shows, so a 100 KB label costs no more than a short one.
 */
export function clipVisible(text: string, width: number): string {
  const { units: parts, overflow } = units(text, width);
  if (!overflow) return parts.map(([s]) => s).join('');
  let out = '';
  let used = 0;
  for (const [s, w] of parts) {
    if (used + w > width - 1) break;
    out += s;
    used += w;
  }
  return `${out}…`;
}

/** `text` made visible, clipped to `width` columns and padded on the left to exactly `width`. */
export function padStartVisible(text: string, width: number): string {
  const shown = clipVisible(text, width);
  return ' '.repeat(Math.max(0, width - displayWidth(shown))) + shown;
}

/** Every line of `text` made visible, the line breaks kept: the last step of each human renderer. */
export function visibleLines(text: string): string {
  return text.split('\n').map(visible).join('\n');
}
