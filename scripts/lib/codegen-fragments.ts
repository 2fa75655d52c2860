// SQL fragments: an expression several statements need (utc9, the recordable-id check, the
// metadata guards) has ONE source per dialect, queries/<dialect>/fragments/<name>.sql, and a
// statement includes it as `{{name(argument)}}`. Codegen expands every include before any
// tool reads the statement (pgtyped for PostgreSQL, better-sqlite3's prepare for SQLite), so
// the generated module's doc comment — and the SQL the database runs — is the whole statement,
// each expansion preceded by a marker comment naming it: `/* utc9(s.observed_at) */ (…)`.
//
// Why includes and not database objects: SQLite's SQL cannot define a function (an
// application function would exist only on the package's connection, so a DBA's sqlite3
// shell could not run the statements), and a view could not serve the host's
// task_session_messages, where most copies read (DESIGN §3 allows the package nothing there
// but an optional index). On PostgreSQL the costly part is already one schema function
// (subagent_context_is_json); a function for the cheap guard around it would add a migration
// step and would have to be re-proven in every plan.
//
// A fragment file is a header comment, then the body: one expression in which `x` stands
// for the argument. The body must be atomic (parenthesized, a call, or CASE … END, optionally
// followed by a ::cast), so an include reads like the function call it looks like. The header
// may declare `@requires other` (the same statement must include `other` on the same
// argument) and `@anchor text` lines: distinctive sub-expressions that may occur in a
// statement only through an include. The literal-copy check (literalCopyProblems) fails
// codegen when a statement writes a fragment's text, or one of its anchors, out literally.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialectName as Dialect } from '../../src/dialect.js';
import { CodegenError } from './codegen-error.js';
import { columnFragments } from './column-fragments.js';
import { annotatedColumns } from './column-rules.js';
import { subagentColumns, subagentRowList } from './schema-columns.js';
import { schemaScripts } from './schema-files.js';
import { blankComments, classify, closingParen, lineAt } from './sql-lex.js';

export const FRAGMENT_FOLDER = 'fragments';
/** The name a fragment's body uses for its argument. */
const ARG = 'x';

export interface Fragment {
  readonly name: string;
  readonly file: string; // relative to the root
  /** The body on one line (runs of whitespace outside quotes become one space); a list keeps its lines. */
  readonly body: string;
  readonly requires: readonly string[];
  readonly anchors: readonly string[];
  /** `@list`: the body is a comma-separated list (a statement's select list), not one expression. */
  readonly list: boolean;
  /** A derived list computed from its argument (scripts/lib/column-fragments.ts); `body` is its expansion on `x`. */
  readonly expand?: (arg: string) => string;
}

export interface Include {
  readonly fragment: string;
  readonly arg: string;
  readonly line: number;
}

/** Runs of whitespace outside quoted text become one space. */
function oneLine(sql: string): string {
  const classes = classify(sql);
  let out = '';
  for (let k = 0; k < sql.length; k++) {
    if (classes[k] === 'c' && /\s/.test(sql[k])) {
      if (!out.endsWith(' ')) out += ' ';
    } else out += sql[k];
  }
  return out.trim();
}

function isAtomic(body: string): boolean {
  const core = body.replace(/(::\w+)+$/, '');
  if (/^CASE\b/i.test(core) && /\bEND$/i.test(core)) return true;
  const open = core.startsWith('(') ? 0 : (/^\w+\s*\(/.exec(core)?.[0].length ?? 0) - 1;
  return open >= 0 && closingParen(core, open) === core.length - 1;
}

function parseFragment(root: string, file: string): Fragment {
  const text = readFileSync(join(root, file), 'utf8');
  const name = file.replace(/^.*\//, '').replace(/\.sql$/, '');
  const header = /^\s*\/\*([\s\S]*?)\*\//.exec(text);
  if (!header) throw new CodegenError(`${file}: a fragment starts with a header comment saying what it is`);
  const list = /^\s*\*?\s*@list\s*$/m.test(header[1]);
  // An expression goes onto one line; a list keeps its lines (aligned under a SELECT), so the
  // generated statement still reads as written.
  const lines = text.slice(header[0].length).trim().split('\n');
  const body = list ? lines.map(oneLine).join('\n       ') : oneLine(lines.join('\n'));
  const classes = classify(body);
  if (classes.includes('m')) throw new CodegenError(`${file}: a fragment's body holds no comment (it is expanded onto one line)`);
  if (!list && !isAtomic(body)) throw new CodegenError(`${file}: the body must be one atomic expression: parenthesized, a call, or CASE … END`);
  if (!argOffsets(body).length) throw new CodegenError(`${file}: the body never uses its argument \`${ARG}\``);
  const tags = (tag: string) => [...header[1].matchAll(new RegExp(String.raw`^\s*\*?\s*@${tag}\s+(.+?)\s*$`, 'gm'))].map((m) => m[1]);
  return { name, file, body, requires: tags('requires'), anchors: tags('anchor'), list };
}

/** Offsets of the argument `x` as a bare word in code (not `t.x`, not inside quotes). */
function argOffsets(body: string): number[] {
  const classes = classify(body);
  return [...body.matchAll(new RegExp(String.raw`(?<![\w.])${ARG}(?![\w(])`, 'g'))].map((m) => m.index).filter((k) => classes[k] === 'c');
}

/** The fragments codegen derives instead of reading, from the fresh DDL: subagent_row(x), the
 * table's columns as the store reads a row back (scripts/lib/schema-columns.ts), and the lists
 * derived from the columns' tags (scripts/lib/column-fragments.ts). */
function derivedFragments(root: string, dialect: Dialect): Fragment[] {
  const table = schemaScripts(root, 'package', dialect).find((s) => s.name === 'task_session_subagents');
  if (!table) return [];
  return [
    { name: 'subagent_row', file: table.file, body: subagentRowList(dialect, subagentColumns(table)), requires: [], anchors: [], list: true },
    ...columnFragments(dialect, table.file, annotatedColumns(table)).map((f) => ({ ...f, requires: [], anchors: [], list: true })),
  ];
}

/** queries/<dialect>/fragments/*.sql and the derived fragments, by name. */
export function loadFragments(root: string, dialect: Dialect): Map<string, Fragment> {
  const dir = join('queries', dialect, FRAGMENT_FOLDER);
  const files = existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((f) => f.endsWith('.sql')) : [];
  const derived = derivedFragments(root, dialect);
  for (const f of derived)
    if (files.includes(`${f.name}.sql`)) throw new CodegenError(`${dir}/${f.name}.sql: ${f.name} is derived from ${f.file}; delete the file`);
  const fragments = new Map([...files.sort().map((f) => parseFragment(root, join(dir, f))), ...derived].map((f) => [f.name, f] as const));
  for (const f of fragments.values())
    for (const r of f.requires) if (!fragments.has(r)) throw new CodegenError(`${f.file}: @requires ${r}, which is no fragment`);
  return fragments;
}

/** The body with its argument substituted; an argument that is not a plain name is parenthesized. */
export function applyFragment(f: Fragment, arg: string): string {
  if (f.expand) return f.expand(arg);
  const value = /^[\w.:!"]+$/.test(arg) ? arg : `(${arg})`;
  let out = f.body;
  for (const k of argOffsets(f.body).reverse()) out = `${out.slice(0, k)}${value}${out.slice(k + ARG.length)}`;
  return out;
}

/** Every `{{name(arg)}}` in code, with its span. */
function findIncludes(file: string, sql: string): (Include & { start: number; end: number })[] {
  const classes = classify(sql);
  const found: (Include & { start: number; end: number })[] = [];
  for (const m of sql.matchAll(/\{\{/g)) {
    if (classes[m.index] !== 'c') continue;
    const end = sql.indexOf('}}', m.index);
    const inner = end < 0 ? '' : sql.slice(m.index + 2, end);
    const call = /^\s*([a-z_][a-z0-9_]*)\((.*)\)\s*$/s.exec(inner);
    const line = lineAt(sql, m.index);
    if (!call || closingParen(inner, inner.indexOf('(')) !== inner.lastIndexOf(')'))
      throw new CodegenError(`${file}:${line}: an include is written {{fragment(argument)}}`);
    found.push({ fragment: call[1], arg: oneLine(call[2]), line, start: m.index, end: end + 2 });
  }
  return found;
}

/** The statement text with every include expanded (marker comment + body), and the includes. */
export function expandIncludes(file: string, sql: string, fragments: ReadonlyMap<string, Fragment>, depth = 0): { text: string; includes: Include[] } {
  if (depth > 3) throw new CodegenError(`${file}: fragments include each other more than three deep (a cycle?)`);
  const includes = findIncludes(file, sql);
  const problems: string[] = [];
  let text = sql;
  for (const inc of [...includes].reverse()) {
    const f = fragments.get(inc.fragment);
    if (!f) {
      problems.push(`${file}:${inc.line}: {{${inc.fragment}(…)}} names no fragment (${[...fragments.keys()].join(', ') || 'none defined'})`);
      continue;
    }
    // A fragment may include others (subagent_row includes utc9), expanded on its argument.
    const body = applyFragment(f, inc.arg);
    const expanded = body.includes('{{') ? expandIncludes(f.file, body, fragments, depth + 1).text : body;
    text = `${text.slice(0, inc.start)}/* ${inc.fragment}(${inc.arg}) */ ${expanded}${text.slice(inc.end)}`;
  }
  for (const inc of includes)
    for (const r of fragments.get(inc.fragment)?.requires ?? [])
      if (!includes.some((o) => o.fragment === r && o.arg === inc.arg))
        problems.push(`${file}:${inc.line}: ${inc.fragment}(${inc.arg}) is used without {{${r}(${inc.arg})}} in the same statement`);
  if (problems.length) throw new CodegenError(problems.join('\n'));
  return { text, includes: includes.map(({ fragment, arg, line }) => ({ fragment, arg, line })) };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern for text with any whitespace wrapping: a space matches any run, and whitespace may
 * appear after '(' or ',' and before ')'. */
const flexible = (s: string) =>
  escape(s)
    .replace(/ /g, String.raw`\s+`)
    .replace(/(\\\(|,)/g, String.raw`$1\s*`)
    .replace(/\\\)/g, String.raw`\s*\)`);

/** The body as a pattern: the argument's first occurrence captures any operand, the others must repeat it. */
function bodyPattern(text: string): RegExp {
  const body = oneLine(text);
  const parts = [];
  let from = 0;
  argOffsets(body).forEach((k, n) => {
    parts.push(flexible(body.slice(from, k)), n === 0 ? String.raw`([\w."]+|\([^;]*?\))` : String.raw`\1`);
    from = k + ARG.length;
  });
  parts.push(flexible(body.slice(from)));
  return new RegExp(parts.join(''), 'gi');
}

/**
 * Where a statement (as written, before expansion) holds a fragment's text or one of its
 * anchors outside an include: each is a copy that would drift from the fragment, so codegen
 * fails naming file, line and the include to write instead. Comments are ignored, so a
 * header may quote a fragment.
 */
export function literalCopyProblems(file: string, sql: string, fragments: ReadonlyMap<string, Fragment>): string[] {
  let code = blankComments(sql);
  for (const inc of findIncludes(file, sql).reverse()) code = `${code.slice(0, inc.start)}${' '.repeat(inc.end - inc.start)}${code.slice(inc.end)}`;
  const classes = classify(code);
  const problems = new Map<number, string>();
  const copies: [number, number][] = []; // spans of whole copies, whose anchors are not reported again
  const within = (k: number) => copies.some(([start, end]) => start <= k && k < end);
  for (const f of fragments.values()) {
    const bare = f.body.startsWith('(') && closingParen(f.body, 0) === f.body.length - 1 ? f.body.slice(1, -1) : null;
    for (const pattern of [bodyPattern(f.body), ...(bare ? [bodyPattern(bare)] : [])])
      for (const m of code.matchAll(pattern))
        if (classes[m.index] === 'c' && !within(m.index)) {
          copies.push([m.index, m.index + m[0].length]);
          problems.set(m.index, `${file}:${lineAt(code, m.index)}: ${f.name}'s text written out: write {{${f.name}(${m[1]})}}`);
        }
  }
  const owners = new Map<string, string[]>(); // an anchor may belong to several fragments
  for (const f of fragments.values()) for (const a of f.anchors) owners.set(a, [...(owners.get(a) ?? []), f.name]);
  for (const [a, names] of owners)
    for (const m of code.matchAll(new RegExp(flexible(a), 'gi')))
      if (classes[m.index] === 'c' && !within(m.index))
        problems.set(m.index, `${file}:${lineAt(code, m.index)}: "${a}" outside an include: it belongs to ${names.map((n) => `{{${n}(…)}}`).join(' or ')}`);
  return [...problems.entries()].sort(([a], [b]) => a - b).map(([, p]) => p);
}
