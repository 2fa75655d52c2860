// Codegen's one entry into the column tags (scripts/lib/column-rules.ts): reads both dialects'
// tagged DDL, fails unless they agree and every statement's column lists are complete
// (check-column-lists.ts), and renders generated/columns.ts (column-module.ts).
import { assertColumnLists } from './check-column-lists.js';
import { renderColumnModule } from './column-module.js';
import { annotatedColumns, assertColumnsAgree, type AnnotatedColumn } from './column-rules.js';
import type { DialectName as Dialect } from '../../src/dialect.js';
import { CodegenError } from './codegen-error.js';
import type { ParsedQuery } from './query-files.js';
import { schemaScripts } from './schema-files.js';

export function checkColumns(
  root: string,
  queries: Readonly<Record<Dialect, readonly ParsedQuery[]>>,
): { columns: readonly AnnotatedColumn[]; module: string } {
  const table = (d: Dialect) => {
    const script = schemaScripts(root, 'package', d).find((s) => s.name === 'task_session_subagents');
    if (!script) throw new CodegenError(`schema/${d}: no task_session_subagents script`);
    return script;
  };
  const byDialect = { sqlite: annotatedColumns(table('sqlite')), postgres: annotatedColumns(table('postgres')) };
  const columns = assertColumnsAgree(byDialect);
  for (const d of Object.keys(queries) as Dialect[]) assertColumnLists(queries[d], byDialect[d]);
  return { columns, module: renderColumnModule(table('sqlite').file, columns) };
}
