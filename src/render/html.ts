// The HTML page's one way to write markup: markup`<p>${text}</p>` escapes every value it
// interpolates (text, numbers) unless the value is itself markup that markup`` made, so a
// string from the database can reach the page only as text, wherever it is put (an element, an
// attribute, an SVG <title>). A list of fragments is interpolated as their concatenation.
// trustedHtml() wraps text the package itself writes as markup (the page's CSS) and nothing else.
// The tag is not called `html`: Prettier formats a template tagged `html` as HTML, which would
// change the page's bytes.

/** Markup: made by markup`` (its values escaped) or by trustedHtml(). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: & < > " ' escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function textOf(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(textOf).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template whose interpolated values are escaped unless they are Html; null, undefined and false add nothing. */
export function markup(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += textOf(value) + strings[i + 1]));
  return new Html(out);
}

/** Fragments (or texts, escaped) joined by `separator`. */
export function joinHtml(parts: readonly HtmlValue[], separator: string): Html {
  return new Html(parts.map(textOf).join(escapeHtml(separator)));
}

/** Markup the package itself wrote, taken as it is: never a value from a report or the database. */
export function trustedHtml(text: string): Html {
  return new Html(text);
}
