// Each column's rules, read from ONE place: the tags in its line of the fresh DDL
// (schema/<dialect>/002_task_session_subagents.sql), e.g.
//
//   model               TEXT,                       -- @replace @from payload.model
//
// A column carries exactly one merge tag — what the live upsert's ON CONFLICT … DO UPDATE SET
// does with it — and, when a frame reports it, `@from frame.<field>` or `@from payload.<field>`.
// Codegen derives from them the column lists of the statements (scripts/lib/column-fragments.ts)
// and of the TypeScript that carries a frame's values to them (scripts/lib/column-module.ts),
// so adding a column that follows a standard rule is a DDL line per dialect (docs/recipes.md).
//
// The merge tags. Codegen writes the SET line of every standard rule; a hand-written rule's line
// stays in each upsert statement, beside the criterion it implements, where a DBA reads it:
//   @key               part of the upsert key (AC-14, AC-30): never in the SET list
//   @write-once        the inserting write's value stays (AC-1, AC-5 table): never in the SET list
//   @fill-forward      the first non-NULL value stays, a stored NULL is filled: COALESCE(old, new)
//   @replace           a new non-NULL value replaces, NULL never blanks (AC-4, AC-5): COALESCE(new, old)
//   @sticky            once 1, never back to 0: MAX/GREATEST(old, new)
//   @latest            the last write's value: new
//   @terminal-guarded  hand-written (tool_status freezes once the row settled, AC-12)
//
// The text class: a TEXT column with @replace and @from. Its whole path is derived — the
// frame's field read as storable text (src/frame-normalization.ts), the upsert's column and
// parameter, the batch record's field, the backfill's extraction from the message metadata
// (payload.<field> is normalized.subagent_task.<field> there; frame.<field> is the top-level
// key in snake case), the row type. Every other column's reading and extraction is hand-written.
import type { DialectName as Dialect } from '../../src/dialect.js';
import { CodegenError } from './codegen-error.js';
import type { SchemaScript } from './schema-script.js';

export const MERGE_RULES = ['key', 'write-once', 'fill-forward', 'replace', 'sticky', 'latest', 'terminal-guarded'] as const;
export type MergeRule = (typeof MERGE_RULES)[number];
/** The rules codegen writes SQL for; the others are absent from the SET list or hand-written. */
export const STANDARD_RULES: readonly MergeRule[] = ['fill-forward', 'replace', 'sticky', 'latest'];
/** The rules whose column never appears in the SET list. */
export const UNCHANGED_RULES: readonly MergeRule[] = ['key', 'write-once'];

export interface ColumnSource {
  readonly object: 'frame' | 'payload';
  readonly field: string;
}

export interface AnnotatedColumn {
  readonly name: string;
  /** The SQL type's first word, upper case (TEXT, INTEGER, BIGINT, TIMESTAMP). */
  readonly type: string;
  readonly rule: MergeRule;
  readonly from: ColumnSource | null;
  /** The text class: derived end to end (see the header). */
  readonly text: boolean;
}

const TABLE = 'task_session_subagents';

/** snake_case -> camelCase: a column's upsert parameter and UpsertInput field. */
export const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
/** camelCase -> snake_case: a frame field's top-level key in the message metadata. */
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The UpsertInput field (src/frame-normalization.ts) a reported column travels in: a frame
 * field keeps its name (sessionId, toolStatus), a payload field is the column in camel case. */
export function inputField(c: AnnotatedColumn): string | null {
  if (!c.from) return null;
  return c.from.object === 'frame' ? c.from.field : camel(c.name);
}

/** The JSON path, as keys, at which a message's metadata holds the column (the backfill). */
export function metadataPath(c: AnnotatedColumn): readonly string[] {
  if (!c.from) throw new CodegenError(`${c.name}: no @from, so no metadata path`);
  return c.from.object === 'payload' ? ['normalized', 'subagent_task', c.from.field] : [snake(c.from.field)];
}

/** The table's columns with their tags, in DDL order. */
export function annotatedColumns(tableScript: SchemaScript): AnnotatedColumn[] {
  const body = new RegExp(String.raw`CREATE TABLE IF NOT EXISTS ${TABLE} \(\n([\s\S]*?)\n\);`).exec(tableScript.sql);
  if (!body) throw new CodegenError(`${tableScript.file}: no "CREATE TABLE IF NOT EXISTS ${TABLE} (" … ");" to read the columns from`);
  const problems: string[] = [];
  const columns: AnnotatedColumn[] = [];
  for (const raw of body[1].split('\n')) {
    const [code, comment = ''] = raw.split('--', 2) as [string, string?];
    const line = code.trim();
    if (line === '' || /^(UNIQUE|PRIMARY KEY|FOREIGN KEY|CHECK|CONSTRAINT)\b/i.test(line)) continue;
    const m = /^([a-z_][a-z0-9_]*)\s+([A-Za-z]+)/.exec(line);
    if (!m) {
      problems.push(`cannot read the column definition "${line}" (one column per line)`);
      continue;
    }
    const name = m[1];
    const tags = [...comment.matchAll(/@([a-z-]+)(?:\s+([\w.]+))?/g)];
    const rules = tags.map((t) => t[1]).filter((t): t is MergeRule => (MERGE_RULES as readonly string[]).includes(t));
    const unknown = tags.map((t) => t[1]).filter((t) => t !== 'from' && !(MERGE_RULES as readonly string[]).includes(t));
    if (unknown.length) problems.push(`${name}: unknown tag ${unknown.map((t) => `@${t}`).join(', ')} (${MERGE_RULES.map((r) => `@${r}`).join(', ')}, @from)`);
    if (rules.length !== 1) {
      problems.push(`${name}: ${rules.length ? 'more than one merge tag' : 'no merge tag'}; tag it with one of ${MERGE_RULES.map((r) => `@${r}`).join(', ')}`);
      continue;
    }
    const fromTag = tags.find((t) => t[1] === 'from');
    const source = fromTag ? /^(frame|payload)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(fromTag[2] ?? '') : null;
    if (fromTag && !source) problems.push(`${name}: write @from frame.<field> or @from payload.<field>`);
    const from = source ? { object: source[1] as ColumnSource['object'], field: source[2] } : null;
    const type = m[2].toUpperCase();
    columns.push({ name, type, rule: rules[0], from, text: type === 'TEXT' && rules[0] === 'replace' && from !== null });
  }
  if (problems.length) throw new CodegenError(`${tableScript.file}: column tags:\n  ${problems.join('\n  ')}`);
  if (columns.length < 10) throw new CodegenError(`${tableScript.file}: read only ${columns.length} columns`);
  return columns;
}

/** Both dialects' tables must agree column for column on name, rule and source (the types may
 * differ: BIGINT metrics on PostgreSQL), so one TypeScript module serves both. */
export function assertColumnsAgree(byDialect: Readonly<Record<Dialect, readonly AnnotatedColumn[]>>): readonly AnnotatedColumn[] {
  const [first, ...rest] = Object.entries(byDialect) as [Dialect, readonly AnnotatedColumn[]][];
  const describe = (c: AnnotatedColumn | undefined) =>
    c ? `${c.name} @${c.rule}${c.from ? ` @from ${c.from.object}.${c.from.field}` : ''}${c.text ? ' (text)' : ''}` : 'nothing';
  const problems: string[] = [];
  for (const [dialect, columns] of rest)
    for (let k = 0; k < Math.max(first[1].length, columns.length); k++)
      if (describe(first[1][k]) !== describe(columns[k]))
        problems.push(`column ${k + 1}: ${describe(first[1][k])} (${first[0]}) vs ${describe(columns[k])} (${dialect})`);
  if (problems.length) throw new CodegenError(`the dialects' task_session_subagents disagree:\n  ${problems.join('\n  ')}`);
  return first[1];
}
