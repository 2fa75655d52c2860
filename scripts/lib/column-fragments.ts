// The column lists codegen derives from the tagged DDL (scripts/lib/column-rules.ts), as
// fragments a statement includes like any other (scripts/lib/codegen-fragments.ts): the
// generated module's doc comment shows each expanded, after a `/* name(argument) */` marker.
// A column that follows a standard rule reaches every statement through them; a column with
// a hand-written rule (or a hand-written value, such as source's 'live') is written in the
// statement itself, and check-column-lists.ts fails codegen when the two together miss a column.
//
//   {{text_columns()}}            the text columns' names           (an INSERT's column list)
//   {{text_columns(r)}}           the same, qualified: r.<column>   (an INSERT … SELECT's list)
//   {{text_parameters()}}         :<camelName> per text column      (the single upsert's VALUES)
//   {{text_record()}}             <column> text per text column     (PostgreSQL jsonb_to_recordset)
//   {{text_from_metadata(m.meta)}} each text column read from a message's metadata as the live
//                                 path reads it from a frame: a JSON string only, '' is NULL
//   {{merge_rules(excluded)}}     the SET line of every column with a standard rule
//   {{column_literals()}}         every column's name as a string literal (NOT IN lists)
import { byDialect, type DialectName as Dialect } from '../../src/dialect.js';
import { camel, metadataPath, STANDARD_RULES, type AnnotatedColumn } from './column-rules.js';

/** A derived fragment: its expansion is computed from the argument (`x` in `body`, for the
 * literal-copy check, stands for any argument). */
export interface ComputedFragment {
  readonly name: string;
  readonly file: string;
  readonly body: string;
  readonly expand: (arg: string) => string;
}

const LIST = ',\n  ';
const TARGET = 'task_session_subagents';

/** A standard rule's SET expression, given the new row's qualifier. */
const MERGE: Record<Dialect, Record<string, (c: string, n: string) => string>> = {
  sqlite: {
    'fill-forward': (c, n) => `COALESCE(${TARGET}.${c}, ${n}.${c})`,
    replace: (c, n) => `COALESCE(${n}.${c}, ${TARGET}.${c})`,
    sticky: (c, n) => `MAX(${TARGET}.${c}, ${n}.${c})`,
    latest: (c, n) => `${n}.${c}`,
  },
  postgres: {
    'fill-forward': (c, n) => `COALESCE(${TARGET}.${c}, ${n}.${c})`,
    replace: (c, n) => `COALESCE(${n}.${c}, ${TARGET}.${c})`,
    sticky: (c, n) => `GREATEST(${TARGET}.${c}, ${n}.${c})`,
    latest: (c, n) => `${n}.${c}`,
  },
};

/**
 * One text column read from metadata `m`: only a JSON string counts, and '' is NULL; so is a
 * string holding a NUL (a \u0000 escape), as on the live path (SQLite would store it; on
 * PostgreSQL such a string reads as null before this: the fragment nul_strings_as_null).
 */
const FROM_METADATA: Record<Dialect, (m: string, path: readonly string[], column: string) => string> = {
  sqlite: (m, path, c) => {
    const p = `'$.${path.join('.')}'`;
    return `CASE WHEN json_type(${m}, ${p}) = 'text' AND instr(json_extract(${m}, ${p}), char(0)) = 0 THEN NULLIF(json_extract(${m}, ${p}), '') END AS ${c}`;
  },
  postgres: (m, path, c) => {
    const p = `'{${path.join(',')}}'`;
    return `CASE WHEN jsonb_typeof(${m} #> ${p}) = 'string' THEN NULLIF(${m} #>> ${p}, '') END AS ${c}`;
  },
};

export function columnFragments(dialect: Dialect, file: string, columns: readonly AnnotatedColumn[]): ComputedFragment[] {
  const text = columns.filter((c) => c.text);
  const standard = columns.filter((c) => STANDARD_RULES.includes(c.rule));
  const fragment = (name: string, expand: (arg: string) => string): ComputedFragment => ({ name, file, body: expand('x'), expand });
  return [
    fragment('text_columns', (q) => text.map((c) => (q ? `${q}.${c.name}` : c.name)).join(LIST)),
    fragment('text_parameters', () => text.map((c) => `:${camel(c.name)}`).join(LIST)),
    // The batch statement's jsonb_to_recordset record: only PostgreSQL has one.
    ...byDialect(dialect, { sqlite: [], postgres: [fragment('text_record', () => text.map((c) => `${c.name} text`).join(', '))] }),
    fragment('text_from_metadata', (m) => text.map((c) => FROM_METADATA[dialect](m, metadataPath(c), c.name)).join(LIST)),
    fragment('merge_rules', (n) => standard.map((c) => `${c.name} = ${MERGE[dialect][c.rule](c.name, n || 'excluded')} /* ${c.rule} */`).join(LIST)),
    fragment('column_literals', () => columns.map((c) => `'${c.name}'`).join(', ')),
  ];
}
