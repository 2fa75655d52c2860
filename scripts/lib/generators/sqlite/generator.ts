// The SQLite generator (DESIGN §5; the DialectGenerator of ../dialect-generator.ts). sqlc
// cannot be installed here, so this small generator does the same job: it parses each query with pgtyped's parser, PREPARES it with
// better-sqlite3 against the package schema (a statement that does not prepare fails
// codegen, naming the query), and types results from Statement#columns() plus
// PRAGMA table_info, honouring pgtyped's "col!" / "col?" overrides and, for expression
// columns SQLite cannot type, the SQLite-only type hint "col!::bigint" (../../column-hints.ts).
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { CodegenError } from '../../codegen-error.js';
import { ColumnHintError, stripColumnHints, type ColumnHint } from '../../column-hints.js';
import { modulePath, pascal, type ParsedQuery } from '../../query-files.js';
import { returnsClass, returnsNote } from '../../query-returns.js';
import { schemaScripts } from '../../schema-files.js';
import type { CompiledStatement, DialectGenerator } from '../dialect-generator.js';

interface ColumnType {
  readonly name: string;
  readonly tsType: string;
  readonly nullable: boolean;
}

/** Rewrites `:name` / `:name!` into better-sqlite3's `@name`, and strips alias hints. */
export function toSqliteSql(q: ParsedQuery): { sql: string; hints: Map<string, ColumnHint> } {
  const ranges = q.params.flatMap((p) => p.ranges.map(([a, b]) => ({ a, b, name: p.name })));
  ranges.sort((x, y) => y.a - x.a);
  let sql = q.statement;
  for (const r of ranges) sql = `${sql.slice(0, r.a)}@${r.name}${sql.slice(r.b)}`;
  try {
    return stripColumnHints(sql);
  } catch (err) {
    if (err instanceof ColumnHintError) throw new CodegenError(`${q.file} (${q.name}): ${err.message}`);
    throw err;
  }
}

function tsTypeOfDeclared(declared: string): string {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'bigint';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'string';
  if (t.includes('TIMESTAMP') || t.includes('DATE')) return 'string';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'number';
  if (t === '' || t.includes('BLOB')) return 'Buffer';
  return 'SqliteValue';
}

function columnTypes(db: Database.Database, q: ParsedQuery, sql: string, hints: Map<string, ColumnHint>): ColumnType[] | null {
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    throw new CodegenError(`${q.file} (${q.name}) does not prepare on SQLite: ${(err as Error).message}`);
  }
  if (!stmt.reader) return null;
  return stmt.columns().map((c) => {
    const hint = hints.get(c.name);
    let tsType = 'SqliteValue';
    let nullable = true;
    if (c.table && c.column) {
      const info = db.prepare(`SELECT type, "notnull", pk FROM pragma_table_info(?) WHERE name = ?`).get(c.table, c.column) as
        { type: string; notnull: number; pk: number } | undefined;
      if (info) {
        tsType = tsTypeOfDeclared(info.type);
        nullable = info.notnull === 0 && info.pk === 0;
      }
    }
    if (hint?.type) tsType = hint.type;
    if (hint?.nullability === '!') nullable = false;
    if (hint?.nullability === '?') nullable = true;
    return { name: c.name, tsType, nullable };
  });
}

/** Doc lines beside each function: what its rows are, and where the normalized row is. */
function rawRowsNote(columns: ColumnType[] | null): string[] {
  if (!columns) return [];
  const subagentRow = ['is_async', 'total_tokens', 'observed_at', 'tool_call_id'].every((c) => columns.some((col) => col.name === c));
  return [
    ' * Rows are raw, as better-sqlite3 hands them over: INTEGER values as bigint (the statement runs',
    ' * with safeIntegers, so int64 survives), booleans as 0n/1n, timestamps as text.',
    ...(subagentRow ? [" * `toSubagentContextRow(row)` (this entry) gives the store's normalized row (numbers, booleans)."] : []),
    ' *',
  ];
}

function docComment(q: ParsedQuery, columns: ColumnType[] | null): string {
  const body = q.statement
    .replace(/\*\//g, '* /')
    .split('\n')
    .map((l) => ` * ${l}`.trimEnd());
  return ['/**', returnsNote(q, 'db'), ' *', ...rawRowsNote(columns), ' * Query generated from SQL:', ' * ```', ...body, ' * ```', ' */'].join('\n');
}

function render(q: ParsedQuery, sql: string, columns: ColumnType[] | null): string {
  const base = pascal(q.name);
  const params = q.params.length
    ? `export interface I${base}Params {\n${q.params
        .map((p) => (p.required ? `  ${p.name}: Exclude<SqliteBindValue, null>;` : `  ${p.name}?: SqliteBindValue;`))
        .join('\n')}\n}`
    : `export type I${base}Params = Record<string, never>;`;
  const result = columns
    ? `export interface I${base}Result {\n${columns
        .map((c) => `  ${/^[A-Za-z_$][\w$]*$/.test(c.name) ? c.name : JSON.stringify(c.name)}: ${c.tsType}${c.nullable ? ' | null' : ''};`)
        .join('\n')}\n}`
    : `export type I${base}Result = void;`;
  const usesValue = result.includes('SqliteValue') || params.includes('SqliteValue ');
  const query = returnsClass('Sqlite', q.returns);
  const imports = [query, 'type SqliteBindValue', ...(usesValue ? ['type SqliteValue'] : [])];
  // The module sits in generated/sqlite/<group folder>/; the runtime in src/sqlite/.
  const runtime = posix.relative(posix.join('generated/sqlite', q.group.folder), 'src/sqlite/prepared-query.js');
  return [
    `// DO NOT EDIT. Generated by \`npm run codegen\` from ${q.file}.`,
    `import { ${imports.join(', ')} } from '${runtime}';`,
    '',
    `/** '${base}' parameters type */`,
    params,
    '',
    `/** '${base}' return type */`,
    result,
    '',
    // pgtyped's I…Query pair, so both dialects' modules export the same names.
    `/** '${base}' query type */`,
    `export interface I${base}Query {\n  params: I${base}Params;\n  result: I${base}Result;\n}`,
    '',
    docComment(q, columns),
    `export const ${q.name} = new ${query}<I${base}Params, I${base}Result>(`,
    `  ${JSON.stringify(q.name)},`,
    `  ${JSON.stringify(sql)},`,
    `  ${JSON.stringify(q.params.map((p) => p.name))},`,
    ');',
    '',
  ].join('\n');
}

/** Each statement is prepared in an in-memory database holding the host and package schema and the backfill's staging table. */
function generateSqlite(root: string, queries: readonly ParsedQuery[], outDir: string): CompiledStatement[] {
  const db = new Database(':memory:');
  for (const script of [...schemaScripts(root, 'host', 'sqlite'), ...schemaScripts(root, 'package', 'sqlite'), ...schemaScripts(root, 'backfill', 'sqlite')])
    db.exec(script.sql);
  const errors: string[] = [];
  const compiled: CompiledStatement[] = [];
  for (const q of queries) {
    try {
      const { sql, hints } = toSqliteSql(q);
      const columns = columnTypes(db, q, sql, hints);
      writeFileSync(join(outDir, modulePath(q)), render(q, sql, columns));
      compiled.push({ query: q, returnsRows: columns !== null });
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  db.close();
  if (errors.length) throw new CodegenError(errors.join('\n'));
  return compiled;
}

export const sqliteGenerator: DialectGenerator = {
  // Type hints are SQLite's own; toSqliteSql validates them while it strips them.
  checkStatements: () => [],
  generate: async (root, queries, outDir) => generateSqlite(root, queries, outDir),
};
