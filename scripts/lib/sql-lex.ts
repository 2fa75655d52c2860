// A small SQL lexer for codegen's own rewrites (fragment includes, the literal-copy check):
// which characters are code, which sit inside a quoted literal or identifier, which inside a
// comment. Both dialects quote alike ('text' with '' as the escape, "identifier"), and
// neither statement set uses PostgreSQL's $$ or E'' forms (a test would fail: the fragment
// tests run this over every statement).

/** 'c' code (an opening quote counts as code: a literal starts there), 's' inside a quoted
 * literal or identifier, 'm' inside a comment. One entry per character of the text. */
export type CharClass = 'c' | 's' | 'm';

export function classify(sql: string): CharClass[] {
  const out: CharClass[] = new Array<CharClass>(sql.length).fill('c');
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      for (let k = i + 1; k <= Math.min(j, sql.length - 1); k++) out[k] = 's';
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      const j = nl < 0 ? sql.length : nl;
      for (let k = i; k < j; k++) out[k] = 'm';
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      const j = close < 0 ? sql.length : close + 2;
      for (let k = i; k < j; k++) out[k] = 'm';
      i = j;
    } else {
      i++;
    }
  }
  return out;
}

/** The text with every comment replaced by spaces (newlines kept, so offsets and lines hold). */
export function blankComments(sql: string, classes: readonly CharClass[] = classify(sql)): string {
  return [...sql].map((ch, k) => (classes[k] === 'm' && ch !== '\n' ? ' ' : ch)).join('');
}

/** 1-based line of an offset. */
export function lineAt(sql: string, offset: number): number {
  return sql.slice(0, offset).split('\n').length;
}

/** Index of the ')' closing the '(' at `open`, skipping quoted text; -1 when unbalanced. */
export function closingParen(sql: string, open: number, classes: readonly CharClass[] = classify(sql)): number {
  let depth = 0;
  for (let k = open; k < sql.length; k++) {
    if (classes[k] !== 'c') continue;
    if (sql[k] === '(') depth++;
    else if (sql[k] === ')' && --depth === 0) return k;
  }
  return -1;
}
