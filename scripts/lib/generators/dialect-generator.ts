// What codegen asks of a dialect: one implementation per dialect, each in its own folder
// (scripts/lib/generators/<dialect>/), collected in GENERATORS (./index.ts), a record keyed by
// every DialectName, so a dialect added to DIALECTS (src/dialect.ts) without its generator is a
// compile error there. The driver (scripts/codegen.ts) owns what is the same for every dialect:
// reading queries/<dialect>/ (scripts/lib/query-files.ts), the checks across dialects, the
// cardinality check, the indexes and generated/<dialect>/schema.ts.
import type { ParsedQuery } from '../query-files.js';

/** What a generator learnt of one statement by compiling it. */
export interface CompiledStatement {
  readonly query: ParsedQuery;
  /** The statement returns rows (a SELECT, or a write with RETURNING), as the dialect's own tool reports it. */
  readonly returnsRows: boolean;
}

export interface DialectGenerator {
  /**
   * Problems in the statements as written that only this dialect's tools would misread, each
   * naming file and query (PostgreSQL: a SQLite-only column type hint); [] when none. Run before
   * anything is compiled.
   */
  checkStatements(queries: readonly ParsedQuery[]): string[];
  /**
   * Compiles every statement against the package schema and writes its module to
   * `outDir/modulePath(q)` (the group folders exist). A module exports, under the statement's
   * name, a prepared query from src/<dialect>/prepared-query.ts, with the I…Params, I…Result
   * and I…Query types and a doc comment holding the whole statement. A statement that does not compile throws a
   * CodegenError naming file and query; every statement is tried before it throws.
   */
  generate(root: string, queries: readonly ParsedQuery[], outDir: string): Promise<CompiledStatement[]>;
}
