// The column list of task_session_subagents, read from its ONE source: the fresh DDL
// (schema/<dialect>/002_task_session_subagents.sql). Codegen writes it into
// generated/<dialect>/schema.ts, and with it one `ALTER TABLE … ADD COLUMN` per nullable
// column, so a column added to the DDL reaches a store created before it through the
// generic add_subagent_columns migration step (src/migrations/column-step.ts): no upgrade
// script, step name or shape-probe column of its own (docs/recipes.md, "Add a column").
import type { DialectName as Dialect } from '../../src/dialect.js';
import { UNREADABLE_INSTANT } from '../../src/rows.js';
import { CodegenError } from './codegen-error.js';
import type { SchemaScript } from './schema-script.js';

export interface SubagentColumn {
  readonly name: string;
  /** The column's definition as the DDL writes it (type and constraints), comment stripped. */
  readonly definition: string;
  /** Nullable and without a key constraint: what ADD COLUMN can give a table holding rows. */
  readonly addable: boolean;
}

const TABLE = 'task_session_subagents';

export function subagentColumns(tableScript: SchemaScript): SubagentColumn[] {
  const body = new RegExp(String.raw`CREATE TABLE IF NOT EXISTS ${TABLE} \(\n([\s\S]*?)\n\);`).exec(tableScript.sql);
  if (!body) throw new CodegenError(`${tableScript.file}: no "CREATE TABLE IF NOT EXISTS ${TABLE} (" … ");" to read the columns from`);
  const columns = body[1]
    .split('\n')
    .map((line) => line.replace(/--.*$/, '').trim())
    .filter((line) => line !== '' && !/^(UNIQUE|PRIMARY KEY|FOREIGN KEY|CHECK|CONSTRAINT)\b/i.test(line))
    .map((line) => {
      const m = /^([a-z_][a-z0-9_]*)\s+(.+?),?$/.exec(line);
      if (!m) throw new CodegenError(`${tableScript.file}: cannot read the column definition "${line}" (one column per line)`);
      const definition = m[2].replace(/\s+/g, ' ');
      return { name: m[1], definition, addable: !/\b(NOT NULL|PRIMARY KEY|UNIQUE)\b/i.test(definition) };
    });
  if (columns.length < 10) throw new CodegenError(`${tableScript.file}: read only ${columns.length} columns`);
  return columns;
}

/** The ADD COLUMN script for one addable column. */
export function addColumnScript(dialect: Dialect, tableScript: SchemaScript, c: SubagentColumn): SchemaScript {
  // PostgreSQL's IF NOT EXISTS makes the script idempotent like every other; SQLite has no
  // such clause, and the step runs it only for a column the probe found absent, under the lock.
  const ifNotExists = dialect === 'postgres' ? 'IF NOT EXISTS ' : '';
  // A column's REFERENCES clause stays: both engines accept it on ADD COLUMN for a nullable column.
  return { name: `add_column_${c.name}`, file: tableScript.file, sql: `ALTER TABLE ${TABLE} ADD COLUMN ${ifNotExists}${c.name} ${c.definition}` };
}

/**
 * How a TIMESTAMP column reads back: the package's one output form 'YYYY-MM-DDTHH:MM:SS.ffffffZ'
 * (docs/timestamps.md). SQLite's stored text may be in any Go-driver form, so it goes through
 * utc9 first; PostgreSQL formats it in SQL, never through the driver's JavaScript Date. A stored
 * value neither reads as an instant (SQLite: an offset beyond its parser's ±14:59, text that is
 * no date; PostgreSQL: 'infinity') comes back as UNREADABLE_INSTANT and the stored text, which
 * src/rows.ts turns into an error naming the row: never NULL, which would read a settled row as
 * unsettled.
 */
const READ_TIMESTAMP: Record<Dialect, (column: string, mark: '!' | '?') => string> = {
  sqlite: (c, mark) => `COALESCE(replace(substr({{utc9(x.${c})}}, 1, 26), ' ', 'T') || 'Z', '${UNREADABLE_INSTANT}' || x.${c}) AS "${c}${mark}::string"`,
  postgres: (c, mark) => `COALESCE(to_char(x.${c}, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), '${UNREADABLE_INSTANT}' || x.${c}::text) AS "${c}${mark}"`,
};

/**
 * The body of the `subagent_row(x)` fragment, derived from the DDL: every column of row x in
 * DDL order, as the store reads a row back (SubagentContextRow); TIMESTAMP columns as above,
 * the rest as stored. The list statements select `{{subagent_row(s)}}`, so a new column is
 * read back without an edit to either.
 */
export function subagentRowList(dialect: Dialect, columns: readonly SubagentColumn[]): string {
  return columns.map((c) => (/^TIMESTAMP\b/i.test(c.definition) ? READ_TIMESTAMP[dialect](c.name, c.addable ? '?' : '!') : `x.${c.name}`)).join(',\n       ');
}
