// The checker behind test/sql-fragment-pin.test.ts. A fragment is an expression the queries
// repeat verbatim because SQL gives it no shared home (see that test's header). Each copy is
// preceded by a marker comment naming the fragment and its argument, `/* utc9(s.observed_at) */`;
// the checker compares every marked copy with the canonical text for that argument, then looks
// for the fragments' distinctive sub-expressions ("anchors") outside the marked copies, so a
// copy nobody marked is found too. Every problem names the file and line.

/** One canonical fragment of one dialect. */
export interface Fragment {
  /** The marker's name: `/* name(argument) *\/`. */
  readonly name: string;
  /** The canonical text for the expression it normalizes (e.g. `m.created_at`). */
  readonly text: (arg: string) => string;
  /** Another fragment the same statement must apply to the same argument. */
  readonly requires?: string;
}

/** A distinctive sub-expression that may occur only inside a marked copy. */
export interface Anchor {
  readonly pattern: RegExp; // global flag
  readonly fragments: readonly string[]; // the fragments it belongs to, for the message
}

export interface FragmentCopy {
  readonly fragment: string;
  readonly arg: string;
  readonly line: number;
}

export interface FragmentCheck {
  readonly copies: readonly FragmentCopy[];
  readonly problems: readonly string[];
}

/** The file that holds the canonical texts; every header with a copy must point to it. */
export const PIN_FILE = 'test/sql-fragment-pin.test.ts';

/** Whitespace policy: runs of whitespace in a canonical text mean one separator. */
export function canonical(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

interface Lexed {
  /** The text with every comment replaced by spaces (newlines kept, so offsets and lines hold). */
  readonly code: string;
  readonly blockComments: readonly { start: number; end: number; body: string }[];
}

/** Splits comments from code, skipping string literals and quoted identifiers. */
function lex(sql: string): Lexed {
  const code = sql.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (code[k] !== '\n') code[k] = ' ';
  };
  const blockComments: { start: number; end: number; body: string }[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i) < 0 ? sql.length : sql.indexOf('\n', i);
      blank(i, j);
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      const j = close < 0 ? sql.length : close + 2;
      blockComments.push({ start: i, end: j, body: sql.slice(i + 2, close < 0 ? j : close) });
      blank(i, j);
      i = j;
    } else {
      i++;
    }
  }
  return { code: code.join(''), blockComments };
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/**
 * Matches `expected` (a canonical text) in `code` from `pos` on: a space in `expected` matches
 * any run of whitespace, so a long copy may be wrapped at its spaces; everything else must be
 * the same character. Returns the end offset, or the offsets of the first difference.
 */
function matchCopy(code: string, pos: number, expected: string): { end: number } | { at: number; k: number } {
  let j = pos;
  while (isSpace(code[j])) j++;
  for (let k = 0; k < expected.length; k++) {
    if (expected[k] === ' ') {
      if (!isSpace(code[j])) return { at: j, k };
      while (isSpace(code[j])) j++;
    } else if (code[j] === expected[k]) {
      j++;
    } else {
      return { at: j, k };
    }
  }
  return { end: j };
}

const MARKER = /^\s*([A-Za-z_]\w*)\(\s*([A-Za-z_][\w.]*)\s*\)\s*$/;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text[k] === '\n') line++;
  return line;
}

const excerpt = (s: string) => JSON.stringify(s.slice(0, 40).replace(/\s+/g, ' '));

/**
 * Checks one .sql file: every marked copy equals its canonical text, no anchor occurs outside a
 * marked copy, every `requires` partner is present, and the header (the text before the
 * statement's `@name` annotation) names each fragment the file uses and the pin file.
 */
export function checkSqlFragments(file: string, sql: string, fragments: readonly Fragment[], anchors: readonly Anchor[]): FragmentCheck {
  const byName = new Map(fragments.map((f) => [f.name, f]));
  const { code, blockComments } = lex(sql);
  const rest = code.split('');
  const copies: FragmentCopy[] = [];
  const problems: string[] = [];
  for (const comment of blockComments) {
    const m = MARKER.exec(comment.body);
    const fragment = m && byName.get(m[1]);
    if (!m || !fragment) continue;
    const line = lineAt(sql, comment.start);
    const expected = canonical(fragment.text(m[2]));
    const result = matchCopy(code, comment.end, expected);
    const claim = (end: number) => {
      for (let k = comment.end; k < end && k < rest.length; k++) if (rest[k] !== '\n') rest[k] = ' ';
    };
    if ('at' in result) {
      // Claim about as much text as the copy was meant to span, so its anchors are not also
      // reported as an unmarked copy: the difference is the one problem.
      claim(result.at + expected.length - result.k);
      problems.push(
        `${file}:${lineAt(sql, result.at)}: the copy marked ${m[1]}(${m[2]}) on line ${line} differs from the canonical text: ` +
          `expected ${excerpt(expected.slice(result.k))}, found ${excerpt(code.slice(result.at))}`,
      );
      continue;
    }
    copies.push({ fragment: m[1], arg: m[2], line });
    claim(result.end);
  }
  const unmarked = rest.join('');
  for (const anchor of anchors) {
    for (const hit of unmarked.matchAll(anchor.pattern)) {
      problems.push(
        `${file}:${lineAt(sql, hit.index)}: ${excerpt(hit[0])} outside a marked copy: write it as ` +
          `${anchor.fragments.map((f) => `/* ${f}(…) */`).join(' or ')} followed by the canonical text in ${PIN_FILE}`,
      );
    }
  }
  for (const copy of copies) {
    const partner = byName.get(copy.fragment)?.requires;
    if (partner && !copies.some((c) => c.fragment === partner && c.arg === copy.arg)) {
      problems.push(`${file}:${copy.line}: ${copy.fragment}(${copy.arg}) is used without ${partner}(${copy.arg}) in the same statement`);
    }
  }
  const header = sql.slice(0, Math.max(0, sql.indexOf('@name')));
  for (const name of new Set(copies.map((c) => c.fragment))) {
    if (!header.includes(name) || !header.includes(PIN_FILE)) {
      problems.push(`${file}:1: the header must name the fragment ${name} and ${PIN_FILE}`);
    }
  }
  return { copies, problems };
}
