// Strings from the database are data, not terminal commands: subagent_type, model, key values
// and the other labels come from agents and hosts, and an ESC, CSI, OSC or a bidi override in
// one of them would otherwise reach the terminal raw (retitle it, swallow the output after it,
// reverse the figures beside it). Every human renderer (report, health, migrate, demo, the
// HTML page) passes its text through visible(); JSON output never does, so it stays exact.
//
// A control is shown as an escape a person can read and type back: `\xNN` up to U+00FF, else
// `\uNNNN` (`\x1b` for ESC, `\u202e` for RIGHT-TO-LEFT OVERRIDE). Clipping works on grapheme
// clusters (Intl.Segmenter) of the visible text, so it never splits a surrogate pair, a
// combining sequence, or an escape it made. One cluster can be arbitrarily long (a letter and
// 100,000 combining marks is one column), so a cluster keeps at most GRAPHEME_POINTS code
// points and a clipped text at most LABEL_UNITS_PER_COLUMN code units per column: a label's
// size is bounded by its width, whatever it holds.

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

/**
 * Code points a grapheme cluster keeps: the base and up to eleven more, room for every emoji
 * sequence we know of (a family with skin tones is 11) and stacked marks. Past it the cluster
 * is cut and GRAPHEME_CUT follows it: 'a' + 100,000 U+0301 shows as 'a' + 11 marks, then `…`.
 */
export const GRAPHEME_POINTS = 12;
const GRAPHEME_CUT = '…';
/** Code units a clipped text may take per column it may show, its final `…` included: 224 for a 28-column label. */
export const LABEL_UNITS_PER_COLUMN = 8;

/** `grapheme` cut to its first GRAPHEME_POINTS code points, or null when it has no more. */
function cutGrapheme(grapheme: string): string | null {
  if (grapheme.length <= GRAPHEME_POINTS) return null; // a code point is at least one code unit
  let end = 0;
  let points = 0;
  for (const point of grapheme) {
    if (++points > GRAPHEME_POINTS) return grapheme.slice(0, end);
    end += point.length;
  }
  return null;
}

/**
 * The visible form of `text` as [grapheme, columns] units; an escape is one unit, and so is
 * the `…` after a cut grapheme. Stops once past `limit` columns or `budget` code units.
 */
function units(text: string, limit: number, budget = Infinity): { units: [string, number][]; overflow: boolean } {
  const out: [string, number][] = [];
  let used = 0;
  let size = 0;
  for (const { segment: whole } of segmenter().segment(text)) {
    const segment = cutGrapheme(whole);
    const kept = segment ?? whole;
    const shown = visible(kept);
    // A grapheme holding controls became escapes: each escape is its own unit, never cut.
    const parts: [string, number][] =
      shown === kept
        ? [[kept, columns(kept)]]
        : shown
            .split(/(\\x[0-9a-f]{2}|\\u[0-9a-f]{4})/)
            .filter(Boolean)
            .map((part) => [part, ESCAPE.test(part) ? part.length : columns(part)]);
    if (segment !== null) parts.push([GRAPHEME_CUT, 1]);
    for (const part of parts) {
      out.push(part);
      used += part[1];
      size += part[0].length;
      if (used > limit || size > budget) return { units: out, overflow: true };
    }
  }
  return { units: out, overflow: false };
}

/** Terminal columns `text` takes once made visible. */
export function displayWidth(text: string): number {
  return units(text, Infinity).units.reduce((t, [, w]) => t + w, 0);
}

/**
 * `text` made visible and clipped to at most `width` columns and `width` x
 * LABEL_UNITS_PER_COLUMN code units, ending in `…` when clipped. Reads only as much of `text`
 * as it shows (to the end of the last grapheme it reads), so a 100 KB label costs no more
 * than a short one.
 */
export function clipVisible(text: string, width: number): string {
  const budget = width * LABEL_UNITS_PER_COLUMN;
  const { units: parts, overflow } = units(text, width, budget);
  if (!overflow) return parts.map(([s]) => s).join('');
  let out = '';
  let used = 0;
  for (const [s, w] of parts) {
    if (used + w > width - 1 || out.length + s.length > budget - 1) break;
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
