// add_subagent_columns: the one migration step every column added to the fresh DDL needs.
// Codegen reads the column list from schema/<dialect>/002_task_session_subagents.sql and
// writes one ADD COLUMN per nullable column (generated/<dialect>/schema.ts addColumnSchema);
// the shape probe reports the live table's column names; this step adds whichever nullable
// columns the live table lacks, so a store created before a column gets it on the next boot.
// A new column therefore needs no upgrade script, step name or probe column of its own
// (docs/recipes.md, "Add a column"). A missing NOT NULL column is not this step's business:
// the key columns are AC-33's (upgrade_pre_amendment_table), and a new NOT NULL column needs
// a step of its own with a default or a copy.
import type { SchemaScript, SchemaStep } from './migration-database.js';
import { MIGRATION_STEP } from './step-names.js';
import type { TableShape } from './table-shape.js';

export interface AddableColumn {
  readonly column: string;
  readonly script: SchemaScript;
}

export function addSubagentColumnsStep(addable: readonly AddableColumn[]): SchemaStep {
  const missing = (s: TableShape) => (s.tablePresent ? addable.filter((c) => !s.columns.includes(c.column)) : []);
  return {
    name: MIGRATION_STEP.addSubagentColumns,
    needed: (s) => missing(s).length > 0,
    scripts: (s) => missing(s).map((c) => c.script),
    verify: true,
  };
}
