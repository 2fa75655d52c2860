// Codegen's column check: every statement that writes task_session_subagents names each
// column of the tagged DDL (scripts/lib/column-rules.ts) exactly once in its INSERT list, and
// an upsert's DO UPDATE SET assigns exactly the columns whose rule changes them (every rule but
// @key and @write-once) — the derived part ({{merge_rules(excluded)}}) and the hand-written
// part (a @terminal-guarded column) together. Read on the expanded statement, so a column a
// fragment brings counts like one written out. A statement that misses a column, or writes a
// key or write-once column on conflict, fails codegen naming both.
import { UNCHANGED_RULES, type AnnotatedColumn } from './column-rules.js';
import { CodegenError } from './codegen-error.js';
import type { ParsedQuery } from './query-files.js';
import { blankComments, classify, closingParen } from './sql-lex.js';

/** Splits at the commas outside parentheses and quotes. */
function topLevelItems(sql: string): string[] {
  const classes = classify(sql);
  const items: string[] = [];
  let depth = 0;
  let from = 0;
  for (let k = 0; k < sql.length; k++) {
    if (classes[k] !== 'c') continue;
    if (sql[k] === '(') depth++;
    else if (sql[k] === ')') depth--;
    else if (sql[k] === ',' && depth === 0) {
      items.push(sql.slice(from, k));
      from = k + 1;
    }
  }
  items.push(sql.slice(from));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

function compare(file: string, what: string, named: readonly string[], wanted: readonly string[]): string[] {
  const problems: string[] = [];
  const missing = wanted.filter((c) => !named.includes(c));
  const extra = named.filter((c) => !wanted.includes(c));
  const twice = named.filter((c, k) => named.indexOf(c) !== k);
  if (missing.length) problems.push(`${file}: ${what} misses ${missing.join(', ')}`);
  if (extra.length) problems.push(`${file}: ${what} names ${extra.join(', ')}, which it must not`);
  if (twice.length) problems.push(`${file}: ${what} names ${twice.join(', ')} twice`);
  return problems;
}

/** The problems of one statement (none when it does not write the table). */
export function columnListProblems(q: Pick<ParsedQuery, 'file' | 'statement'>, columns: readonly AnnotatedColumn[]): string[] {
  const code = blankComments(q.statement);
  const insert = /\bINSERT\s+INTO\s+task_session_subagents\s*\(/i.exec(code);
  if (!insert) return [];
  const open = insert.index + insert[0].length - 1;
  const close = closingParen(code, open);
  const problems = compare(
    q.file,
    'the INSERT column list',
    topLevelItems(code.slice(open + 1, close)),
    columns.map((c) => c.name),
  );
  const set = /\bDO\s+UPDATE\s+SET\b/i.exec(code);
  if (set) {
    const assigned = topLevelItems(code.slice(set.index + set[0].length)).map((item) => /^([a-z_][a-z0-9_]*)\s*=/.exec(item)?.[1] ?? item);
    problems.push(
      ...compare(
        q.file,
        'DO UPDATE SET',
        assigned,
        columns.filter((c) => !UNCHANGED_RULES.includes(c.rule)).map((c) => c.name),
      ),
    );
  }
  return problems;
}

export function assertColumnLists(queries: readonly ParsedQuery[], columns: readonly AnnotatedColumn[]): void {
  const problems = queries.flatMap((q) => columnListProblems(q, columns));
  if (problems.length) throw new CodegenError(`column lists (the tags are in the DDL):\n  ${problems.join('\n  ')}`);
}
