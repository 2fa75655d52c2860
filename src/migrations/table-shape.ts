// The live shape of the package's tables as the observe query reports it
// (queries/<dialect>/observe_subagent_table_shape.sql), with PostgreSQL's JSON helper as
// queries/postgres/observe_json_helper.sql judges it, in one dialect-neutral form.
import { SQLITE_JSON_HELPER, type JsonHelper } from './json-helper.js';

export interface TableShape {
  kandevMetaPresent: boolean;
  tablePresent: boolean;
  executionColumnPresent: boolean;
  executionColumnNotNull: boolean;
  threeColumnUniquePresent: boolean;
  twoColumnUniquePresent: boolean;
  /** Secondary indexes of the fresh DDL (schema/<dialect>/003) absent from the table. */
  missingSecondaryIndexes: number;
  /** PostgreSQL metric columns still declared int2/int4 (DESIGN §3); always 0 on SQLite. */
  narrowMetricColumns: number;
  /** PostgreSQL's pg_input_is_valid(text, text) as search_path resolves it; always current on SQLite. */
  jsonHelper: JsonHelper;
  /** The live table's column names ([] when the table is absent): src/migrations/column-step.ts. */
  columns: readonly string[];
  /** Tables of the usage ledger (schema/<dialect>/*_usage_ledger.sql, issue 33) that are absent. */
  usageTablesMissing: number;
}

/**
 * AC-33b: the key-bearing clauses 1–3 of AC-33's end state — agent_execution_id present and
 * NOT NULL, the three-column UNIQUE present, no two-column UNIQUE left. Clauses 4 and 5 are
 * required outcomes but do not gate subagent_context_execution_since.
 */
export function executionIdentityShapeHolds(shape: TableShape): boolean {
  return shape.tablePresent && shape.executionColumnPresent && shape.executionColumnNotNull && shape.threeColumnUniquePresent && !shape.twoColumnUniquePresent;
}

/** Row of the observe query, whichever driver returned it (SQLite: bigint 0/1; PostgreSQL: boolean/number). */
export type RawTableShape = Record<keyof RawShapeColumns, unknown>;
/** The PostgreSQL-only columns, which SQLite's probe does not return. */
type PostgresOnlyColumn = 'narrow_metric_columns';
interface RawShapeColumns {
  kandev_meta_present: unknown;
  table_present: unknown;
  execution_column_present: unknown;
  execution_column_not_null: unknown;
  three_column_unique_present: unknown;
  two_column_unique_present: unknown;
  missing_secondary_indexes: unknown;
  narrow_metric_columns: unknown;
  subagent_columns: unknown;
  usage_tables_missing: unknown;
}

const flag = (v: unknown): boolean => v === true || v === 1 || v === 1n;
const count = (v: unknown): number => Number(v);
/** The probe's JSON array of names; anything else throws (the probe is the package's own statement: a malformed answer is a defect, never read as "no column"). */
function columnNames(v: unknown): string[] {
  const parsed: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  if (!Array.isArray(parsed) || !parsed.every((n) => typeof n === 'string'))
    throw new Error(`the table-shape probe's column list is not a JSON array of names: ${String(v)}`);
  return parsed;
}

/** The probe's row (`@returns one`: its `.one()` threw NoRowError had there been none). */
export function toTableShape(row: RawTableShape, jsonHelper: JsonHelper): TableShape {
  return {
    kandevMetaPresent: flag(row.kandev_meta_present),
    tablePresent: flag(row.table_present),
    executionColumnPresent: flag(row.execution_column_present),
    executionColumnNotNull: flag(row.execution_column_not_null),
    threeColumnUniquePresent: flag(row.three_column_unique_present),
    twoColumnUniquePresent: flag(row.two_column_unique_present),
    missingSecondaryIndexes: count(row.missing_secondary_indexes),
    narrowMetricColumns: count(row.narrow_metric_columns),
    jsonHelper,
    columns: columnNames(row.subagent_columns),
    usageTablesMissing: count(row.usage_tables_missing),
  };
}

/**
 * SQLite's probe row, its missing PostgreSQL-only column given its SQLite meaning (no narrow
 * metric column: SQLite INTEGER is already 64-bit), and SQLite's JSON helper answer.
 */
export function sqliteTableShape(row: Omit<RawTableShape, PostgresOnlyColumn>): TableShape {
  return toTableShape({ ...row, narrow_metric_columns: 0 }, SQLITE_JSON_HELPER);
}
