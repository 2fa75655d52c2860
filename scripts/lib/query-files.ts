// Reads queries/<dialect>/*.sql with pgtyped's own parser, so both dialects share one
// annotation syntax (`/* @name x */`, `:param!`, `AS "col!"`) and one notion of validity.
import { parseSQLFile } from '@pgtyped/parser';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export type Dialect = 'sqlite' | 'postgres';
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export interface ParsedParam {
  readonly name: string;
  readonly required: boolean;
  /** Character ranges [start, end) of each `:name` / `:name!` occurrence in the file text. */
  readonly ranges: readonly (readonly [number, number])[];
}

export interface ParsedQuery {
  readonly file: string; // path relative to the repository root
  readonly fileBase: string; // e.g. upsert_subagent_context
  readonly name: string; // e.g. upsertSubagentContext
  readonly params: readonly ParsedParam[];
  /** Statement text exactly as written, comments included, without the trailing ';'. */
  readonly statement: string;
  readonly statementStart: number;
}

export class CodegenError extends Error {}

export function listQueryFiles(root: string, dialect: Dialect): string[] {
  const dir = join(root, 'queries', dialect);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => join('queries', dialect, f));
}

/** Parses one query file; a file must hold exactly one named statement. */
export function parseQueryFile(root: string, file: string): ParsedQuery {
  const text = readFileSync(join(root, file), 'utf8');
  const { queries, events } = parseSQLFile(text);
  const problems = events.map((e) => `line ${e.location?.line ?? '?'}: ${e.message.text}`);
  if (problems.length) throw new CodegenError(`${file}: ${problems.join('; ')}`);
  if (queries.length !== 1) throw new CodegenError(`${file}: expected exactly one /* @name */ query, found ${queries.length}`);
  const [q] = queries;
  const statementStart = q.statement.loc.a;
  let statement = text.slice(statementStart, q.statement.loc.b + 1).replace(/;\s*$/, '');
  const params = q.params.map((p) => ({
    name: p.name,
    required: p.required,
    ranges: p.codeRefs.used.map((loc) => {
      // loc spans the name; the ':' precedes it and a '!' may follow it.
      const start = loc.a - 1;
      const end = text[loc.b + 1] === '!' ? loc.b + 2 : loc.b + 1;
      if (text[start] !== ':') throw new CodegenError(`${file}: cannot locate parameter :${p.name}`);
      return [start - statementStart, end - statementStart] as const;
    }),
  }));
  statement = statement.trimEnd();
  return { file, fileBase: basename(file, '.sql'), name: q.name, params, statement, statementStart };
}

export function parseDialect(root: string, dialect: Dialect): ParsedQuery[] {
  return listQueryFiles(root, dialect).map((f) => parseQueryFile(root, f));
}

/** Both dialects must offer the same files, query names and parameter names. */
export function assertDialectParity(sqlite: readonly ParsedQuery[], postgres: readonly ParsedQuery[]): void {
  const errors: string[] = [];
  const byFile = (qs: readonly ParsedQuery[]) => new Map(qs.map((q) => [q.fileBase, q]));
  const a = byFile(sqlite);
  const b = byFile(postgres);
  for (const f of new Set([...a.keys(), ...b.keys()])) {
    const qa = a.get(f);
    const qb = b.get(f);
    if (!qa || !qb) {
      errors.push(`${f}.sql exists only in queries/${qa ? 'sqlite' : 'postgres'}`);
      continue;
    }
    if (qa.name !== qb.name) errors.push(`${f}.sql: query name ${qa.name} (sqlite) vs ${qb.name} (postgres)`);
    const pa = qa.params.map((p) => `${p.name}${p.required ? '!' : ''}`).sort().join(', ');
    const pb = qb.params.map((p) => `${p.name}${p.required ? '!' : ''}`).sort().join(', ');
    if (pa !== pb) errors.push(`${f}.sql: parameters [${pa}] (sqlite) vs [${pb}] (postgres)`);
  }
  if (errors.length) throw new CodegenError(`dialects disagree:\n  ${errors.join('\n  ')}`);
}

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
