// Reads queries/<dialect>/*.sql with pgtyped's own parser, so both dialects share one
// annotation syntax (`/* @name x */`, `:param!`, `AS "col!"`) and one notion of validity.
import { parseSQLFile } from '@pgtyped/parser';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DialectName as Dialect } from '../../src/dialect.js';
import { expandIncludes, FRAGMENT_FOLDER, literalCopyProblems, loadFragments, type Fragment } from './codegen-fragments.js';
import { CodegenError } from './codegen-error.js';
import { declaredReturns } from './query-returns.js';
import type { QueryReturns } from '../../src/query-returns.js';

export { DIALECTS, type DialectName as Dialect } from '../../src/dialect.js';

/**
 * The statement groups, each generated with its own index: the product's statements
 * (queries/<dialect>/*.sql → generated/<dialect>/index.ts, what the package runs and exports)
 * and the demo's (queries/<dialect>/demo/*.sql → generated/<dialect>/demo/index.ts, which
 * only src/demo imports), and the proxy's host-row writes (queries/<dialect>/proxy/*.sql →
 * generated/<dialect>/proxy/index.ts, which only src/proxy imports: the proxy is the host, so
 * it writes the rows a host's message writer would). `folder` is the subfolder under queries/<dialect>/ and
 * generated/<dialect>/ alike ('' for the product).
 */
export const QUERY_GROUPS = [
  { name: 'product', folder: '' },
  { name: 'demo', folder: 'demo' },
  { name: 'proxy', folder: 'proxy' },
  // The transcript importers' writes (issue 33: the usage ledger and the import progress);
  // only src/import imports generated/<dialect>/import/index.ts.
  { name: 'import', folder: 'import' },
] as const;
export type QueryGroup = (typeof QUERY_GROUPS)[number];

export interface ParsedParam {
  readonly name: string;
  readonly required: boolean;
  /** Character ranges [start, end) of each `:name` / `:name!` occurrence in the file text. */
  readonly ranges: readonly (readonly [number, number])[];
}

export interface ParsedQuery {
  readonly file: string; // path relative to the repository root
  readonly group: QueryGroup;
  readonly fileBase: string; // e.g. upsert_subagent_context
  readonly name: string; // e.g. upsertSubagentContext
  readonly params: readonly ParsedParam[];
  /** What the caller gets: the `@returns` line above `@name` (scripts/lib/query-returns.ts). */
  readonly returns: QueryReturns;
  /** Statement text exactly as written, comments included, without the trailing ';'. */
  readonly statement: string;
  readonly statementStart: number;
  /** The whole file as the tools read it: header comment and statement, includes expanded. */
  readonly source: string;
}

/** The group's .sql files, relative to the root. A subfolder that is no group fails: its
 * statements would be compiled by pgtyped (which globs recursively) yet exported nowhere. */
export function listQueryFiles(root: string, dialect: Dialect, group: QueryGroup): string[] {
  const rel = join('queries', dialect, group.folder);
  const entries = readdirSync(join(root, rel), { withFileTypes: true });
  if (group.folder === '') {
    const strays = entries.filter((e) => e.isDirectory() && e.name !== FRAGMENT_FOLDER && !QUERY_GROUPS.some((g) => g.folder === e.name));
    if (strays.length)
      throw new CodegenError(`${strays.map((e) => join(rel, e.name)).join(', ')}: not a query group (${QUERY_GROUPS.map((g) => g.folder || '.').join(', ')})`);
  } else if (entries.some((e) => e.isDirectory())) {
    throw new CodegenError(`${rel}: query groups do not nest`);
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.sql'))
    .map((e) => e.name)
    .sort()
    .map((f) => join(rel, f));
}

/** Where a group's generated modules go, relative to generated/<dialect>/. */
export function modulePath(q: Pick<ParsedQuery, 'group' | 'fileBase'>): string {
  return join(q.group.folder, `${q.fileBase}.queries.ts`);
}

/** A query file's text as the tools read it: every `{{fragment(arg)}}` expanded
 * (scripts/lib/codegen-fragments.ts), after the literal-copy check passed. */
export function expandedQueryText(root: string, file: string, fragments: ReadonlyMap<string, Fragment>): string {
  const raw = readFileSync(join(root, file), 'utf8');
  const copies = literalCopyProblems(file, raw, fragments);
  if (copies.length) throw new CodegenError(copies.join('\n'));
  return expandIncludes(file, raw, fragments).text;
}

/** Parses one query file; a file must hold exactly one named statement. */
export function parseQueryFile(root: string, file: string, group: QueryGroup, fragments: ReadonlyMap<string, Fragment>): ParsedQuery {
  const text = expandedQueryText(root, file, fragments);
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
  const returns = declaredReturns(file, text.slice(0, statementStart));
  return { file, group, fileBase: basename(file, '.sql'), name: q.name, params, returns, statement, statementStart, source: text };
}

/** Every group's statements for a dialect. Query names are unique across groups: the SQLite
 * runtime caches prepared statements by name, and one name must mean one statement. */
export function parseDialect(root: string, dialect: Dialect): ParsedQuery[] {
  const fragments = loadFragments(root, dialect);
  const files = QUERY_GROUPS.flatMap((g) => listQueryFiles(root, dialect, g).map((f) => [f, g] as const));
  // Used: included by a statement, or by another fragment (valid_jsonb, inside metadata_or_empty).
  const texts = [...files.map(([f]) => readFileSync(join(root, f), 'utf8')), ...[...fragments.values()].map((fr) => fr.body)];
  const unused = [...fragments.values()].filter((fr) => !texts.some((t) => t.includes(`{{${fr.name}(`)));
  if (unused.length) throw new CodegenError(unused.map((fr) => `${fr.file}: included by no statement (delete it)`).join('\n'));
  const problems: string[] = [];
  const queries = files.flatMap(([f, g]) => {
    try {
      return [parseQueryFile(root, f, g, fragments)];
    } catch (err) {
      if (!(err instanceof CodegenError)) throw err;
      problems.push(err.message);
      return [];
    }
  });
  if (problems.length) throw new CodegenError(problems.join('\n'));
  const seen = new Map<string, string>();
  const duplicates: string[] = [];
  for (const q of queries) {
    const other = seen.get(q.name);
    if (other) duplicates.push(`query name ${q.name} in both ${other} and ${q.file}`);
    seen.set(q.name, q.file);
  }
  if (duplicates.length) throw new CodegenError(duplicates.join('\n'));
  return queries;
}

/**
 * Both dialects must offer the same files (in the same group) and query names, bar the
 * statements listed in DIALECT_ONLY. Parameters: one dialect may take a superset of the
 * other's (SQLite's health and report statements take :sinceFloor/:untilCeil, index bounds
 * PostgreSQL needs none of), never a parameter the other spells differently; a parameter both
 * take is required on both or on neither.
 */
export function assertDialectParity(sqlite: readonly ParsedQuery[], postgres: readonly ParsedQuery[]): void {
  const errors: string[] = [];
  const byFile = (qs: readonly ParsedQuery[]) => new Map(qs.map((q) => [join(q.group.folder, q.fileBase), q]));
  const a = byFile(sqlite);
  const b = byFile(postgres);
  for (const f of new Set([...a.keys(), ...b.keys()])) {
    const qa = a.get(f);
    const qb = b.get(f);
    if (!qa || !qb) {
      const only: Dialect = qa ? 'sqlite' : 'postgres';
      const declared = DIALECT_ONLY[f] ?? [];
      if (declared.length !== 1 || !declared.includes(only)) errors.push(`${f}.sql exists only in queries/${only}`);
      continue;
    }
    if (qa.name !== qb.name) errors.push(`${f}.sql: query name ${qa.name} (sqlite) vs ${qb.name} (postgres)`);
    const params = (q: ParsedQuery) => new Map(q.params.map((p) => [p.name, p.required]));
    const [pa, pb] = [params(qa), params(qb)];
    const list = (m: Map<string, boolean>) =>
      [...m.keys()]
        .sort()
        .map((n) => `${n}${m.get(n) ? '!' : ''}`)
        .join(', ');
    const within = (x: Map<string, boolean>, y: Map<string, boolean>) => [...x].every(([n, req]) => y.get(n) === req);
    if (!within(pa, pb) && !within(pb, pa) && !(f in OWN_PARAMETERS))
      errors.push(`${f}.sql: parameters [${list(pa)}] (sqlite) vs [${list(pb)}] (postgres): neither is a superset of the other`);
  }
  if (errors.length) throw new CodegenError(`dialects disagree:\n  ${errors.join('\n  ')}`);
}

/**
 * Statements only some dialects have, each with the set of dialects that do and why (a
 * statement nothing runs is deleted, not kept for symmetry).
 */
export const DIALECT_ONLY: Readonly<Record<string, readonly Dialect[]>> = {
  // recordFrames' multi-row upsert: one round trip per burst over the network. SQLite's
  // recordFrames runs the single upsert per frame inside one transaction, in process.
  upsert_subagent_contexts_batch: ['postgres'],
  // The migration lock and its bounded wait: SQLite's BEGIN IMMEDIATE takes the database's one
  // write lock, waiting up to the busy timeout (src/sqlite/migrations.ts); no advisory lock exists.
  acquire_migration_lock: ['postgres'],
  // The backfill's chunk size follows the role's statement_timeout; SQLite has none.
  read_statement_timeout: ['postgres'],
  set_local_lock_timeout: ['postgres'],
  // The backfill's fixed sort and hash budget: SQLite has no per-operation budget; its sorter
  // spills to temporary files past the connection's page cache, which the backfill leaves as is.
  set_local_work_mem: ['postgres'],
  // The JSON validity statements' pinned search_path (issue 30 items 7 and 8): SQLite resolves
  // no function through a search path (json_valid is built in).
  set_local_search_path: ['postgres'],
  // The window walk's and the mark's edges as ISO text whatever the session's DateStyle: SQLite
  // keeps its instants as the host's own text, which no session setting changes.
  set_local_time_settings: ['postgres'],
  // The JSON helper's trust (issue #16 item 3): SQLite has no such object (json_valid is
  // built in, and a file cannot carry a function), so SQLITE_JSON_HELPER
  // (src/migrations/json-helper.ts) answers 'current' for it without a statement.
  observe_json_helper: ['postgres'],
  // The optional host index's interrupted build: only CREATE INDEX CONCURRENTLY leaves an
  // INVALID index behind; SQLite builds an index in one transaction, whole or not at all.
  drop_unfinished_host_index: ['postgres'],
  // The backfill's progress per chunk: PostgreSQL's chunks read their sessions' messages and
  // count them; SQLite's read staged candidates, and phase 1 counts the messages it read.
  count_backfill_chunk_messages: ['postgres'],
  // The lock on a PostgreSQL chunk's sessions, taken apart from reading their keys
  // (next_backfill_sessions.sql says why); SQLite's BEGIN IMMEDIATE already excludes every writer.
  lock_backfill_sessions: ['postgres'],
  // PostgreSQL's window walk (src/migrations/backfill-windows.ts): windows of the host's
  // created_at read as bitmap heap scans. SQLite's created_at is text in several forms, and its
  // walk reads the messages in storage order first instead (phase 1, below).
  next_backfill_window: ['postgres'],
  backfill_window_contexts: ['postgres'],
  set_local_bitmap_scans: ['postgres'],
  set_local_statement_timeout: ['postgres'],
  probe_created_at_index: ['postgres'],
  count_backfill_window_messages: ['postgres'],
  // The SQLite backfill's phase 1 (src/migrations/backfill-stage.ts). PostgreSQL walks windows
  // of created_at instead (above), or its sessions where the host has no created_at index.
  stage_backfill_candidates: ['sqlite'],
  keep_backfill_range: ['sqlite'],
  clear_backfill_range: ['sqlite'],
  drop_backfill_range: ['sqlite'],
  keep_backfill_rows: ['sqlite'],
  clear_backfill_rows: ['sqlite'],
  drop_backfill_rows: ['sqlite'],
  check_backfill_rows: ['sqlite'],
  count_backfill_range: ['sqlite'],
  read_change_marks: ['sqlite'],
  read_message_rowid_bound: ['sqlite'],
  read_message_rowid_anchor: ['sqlite'],
  read_message_rowid_by_id: ['sqlite'],
  drop_backfill_stage: ['sqlite'],
  read_next_message_rowid: ['sqlite'],
  probe_backfill_stage: ['sqlite'],
  read_schema_version: ['sqlite'],
  read_stage_freshness_marks: ['sqlite'],
  // The live write's foreign-key test where the host deferred foreign keys: PostgreSQL checks a
  // key it did not declare DEFERRABLE at each statement whatever SET CONSTRAINTS says.
  read_session_present: ['sqlite'],
  // The SQLite host index of an earlier version, replaced (src/sqlite/host-index.ts). PostgreSQL's
  // predicate (strpos on text) did not change.
  drop_host_index: ['sqlite'],
};

/**
 * Statements both dialects have whose parameters differ by design, each with why (the runner
 * calls each dialect's through its own primitive, so no caller passes one set to both).
 */
export const OWN_PARAMETERS: Readonly<Record<string, string>> = {
  // One backfill chunk: SQLite's reads its staging table by a session-key range under its one
  // write lock; PostgreSQL's takes the set of sessions it locked, never a range, since the
  // messages' column may sort under another collation than task_sessions.id.
  backfill_subagent_contexts:
    'SQLite: a key range (after, upTo] and stagedAt (when its candidates may be ranked from the staging table); PostgreSQL: the locked sessionIds',
};

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
