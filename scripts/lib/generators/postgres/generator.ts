// The PostgreSQL generator (DESIGN §5; the DialectGenerator of ../dialect-generator.ts): pgtyped
// against a real server, an embedded one codegen starts (or SUBAGENT_CONTEXT_CODEGEN_PG_URL's). pgtyped can
// exit 0 on an invalid query (it writes `never` types and a comment instead), so success is
// decided here: its output is scanned for errors, every query file must produce its module,
// and no module may carry pgtyped's "is invalid" marker.
//
// pgtyped's modules construct a @pgtyped/runtime PreparedQuery from the statement's IR, and
// that runtime re-parses the IR into `$n` text on every call: a runtime dependency (with the
// parser and antlr4ts behind it) for work that is fixed once the .sql is. So each module is
// rewritten to construct src/postgres/prepared-query.ts's PostgresPreparedQuery from the text
// and parameter order pgtyped's own processSQLQueryIR computes here, at codegen time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ParameterTransform, processSQLQueryIR } from '@pgtyped/runtime';
import { CodegenError } from '../../codegen-error.js';
import { typeHintedColumns } from '../../column-hints.js';
import { startEmbeddedPostgres } from '../../embedded-postgres.js';
import { clientFor, createDatabase } from '../../postgres-database.js';
import { modulePath, type ParsedQuery } from '../../query-files.js';
import { returnsClass, returnsNote } from '../../query-returns.js';
import { schemaScripts } from '../../schema-files.js';
import type { CompiledStatement, DialectGenerator } from '../dialect-generator.js';

/** The statement as PostgreSQL receives it: `$n` text, and which parameter each `$n` binds. */
export function precompile(ir: Parameters<typeof processSQLQueryIR>[0]): { text: string; paramNames: string[] } {
  const { query, mapping } = processSQLQueryIR(ir);
  // Only scalar parameters have one value per `$n`; a spread or pick parameter (`:ids(...)`)
  // expands with its value, which would need the parser back at run time.
  const paramNames = mapping.map((m) => {
    if (m.type !== ParameterTransform.Scalar) throw new CodegenError(`parameter :${m.name}: only scalar parameters can be precompiled (no spread or pick)`);
    return m.name;
  });
  return { text: query, paramNames };
}

/** Doc lines beside each function: what its rows are, and where the normalized row is. */
function rawRowsNote(moduleText: string): string[] {
  if (/^export type I\w+Result = void;$/m.test(moduleText)) return [];
  const subagentRow = ['is_async', 'total_tokens', 'observed_at', 'tool_call_id'].every((c) => new RegExp(`^  ${c}: `, 'm').test(moduleText));
  return [
    ' * Rows are raw, as node-postgres hands them over with its default parsers: BIGINT and COUNT as',
    " * decimal strings, SMALLINT as numbers, timestamps as the statement's text.",
    ...(subagentRow ? [" * `toSubagentContextRow(row)` (this entry) gives the store's normalized row (numbers, booleans)."] : []),
    ' *',
  ];
}

/** pgtyped's module with its runtime PreparedQuery replaced by a precompiled PostgresPreparedQuery
 * of the class the statement's `@returns` names (PostgresOneQuery, …). */
function precompiled(q: ParsedQuery, text: string, problems: string[]): string {
  const runtime = posix.relative(posix.join('generated/postgres', q.group.folder), 'src/postgres/prepared-query.js');
  const irLine = new RegExp(`^const ${q.name}IR: any = (.*);\n\n`, 'm');
  const ir = text.match(irLine)?.[1];
  const construct = new RegExp(String.raw`new PreparedQuery<(\w+),(\w+)>\(${q.name}IR\);`);
  if (ir === undefined || !construct.test(text) || !text.includes("import { PreparedQuery } from '@pgtyped/runtime';")) {
    problems.push(`${q.file} (${q.name}): pgtyped's module is not in the shape codegen rewrites`);
    return text;
  }
  let compiled: { text: string; paramNames: string[] };
  try {
    compiled = precompile(JSON.parse(ir) as Parameters<typeof processSQLQueryIR>[0]);
  } catch (err) {
    problems.push(`${q.file} (${q.name}): ${err instanceof Error ? err.message : String(err)}`);
    return text;
  }
  const query = returnsClass('Postgres', q.returns);
  return text
    .replace("import { PreparedQuery } from '@pgtyped/runtime';", `import { ${query} } from '${runtime}';`)
    .replace(irLine, '')
    .replace(' * Query generated from SQL:\n', () =>
      [returnsNote(q, 'poolOrClient'), ' *', ...rawRowsNote(text), ' * Query generated from SQL:', ''].join('\n'),
    )
    .replace(
      construct,
      (_m, params: string, result: string) =>
        `new ${query}<${params}, ${result}>(\n  ${JSON.stringify(q.name)},\n  ${JSON.stringify(compiled.text)},\n  ${JSON.stringify(compiled.paramNames)},\n);`,
    );
}

/** pgtyped copies a statement without parameters verbatim into the doc comment, so a fragment's
 * marker comment would close it: written `* /` there, as the SQLite modules write it. */
function escapeMarkers(module: string): string {
  return module.replace(/( \* ```\n)([\s\S]*?)( \* ```\n)/, (_m, open: string, sql: string, close: string) => `${open}${sql.replace(/\*\//g, '* /')}${close}`);
}

async function applyPostgresSchema(url: string, root: string): Promise<void> {
  const client = clientFor(url);
  await client.connect();
  try {
    for (const script of [...schemaScripts(root, 'host', 'postgres'), ...schemaScripts(root, 'package', 'postgres')]) {
      await client.query(script.sql);
    }
  } finally {
    await client.end();
  }
}

/** A database to compile against: SUBAGENT_CONTEXT_CODEGEN_PG_URL's (the codegen tests'), else a fresh embedded server's. */
async function withCodegenDatabase<T>(fn: (url: string) => T | Promise<T>): Promise<T> {
  const external = process.env.SUBAGENT_CONTEXT_CODEGEN_PG_URL;
  if (external) return fn(external);
  const server = await startEmbeddedPostgres({ fsync: false });
  try {
    return await fn((await createDatabase(server.url, 'codegen')).url);
  } finally {
    await server.stop();
  }
}

function generatePostgres(url: string, queries: readonly ParsedQuery[], outDir: string): CompiledStatement[] {
  const cli = fileURLToPath(new URL('../../../../node_modules/@pgtyped/cli/lib/index.js', import.meta.url));
  const work = mkdtempSync(join(tmpdir(), 'pgtyped-'));
  try {
    // pgtyped reads .sql files itself, so it is given each statement with its fragment
    // includes expanded (scripts/lib/codegen-fragments.ts), at the same relative paths under
    // a scratch root: its module header names queries/postgres/… as before, and the doc
    // comment it writes is the whole statement a DBA can run.
    for (const q of queries) {
      mkdirSync(dirname(join(work, q.file)), { recursive: true });
      writeFileSync(join(work, q.file), q.source);
    }
    // pgtyped globs srcDir recursively (`<srcDir>/**/*.sql`), so one run compiles every
    // group; the template mirrors each file's folder under queries/postgres into outDir
    // (queries/postgres/demo/x.sql → <outDir>/demo/x.queries.ts). `dir` is relative to cwd.
    const config = {
      transforms: [{ mode: 'sql', include: '*.sql', emitTemplate: `{{ dir | replace("queries/postgres", ${JSON.stringify(outDir)}) }}/{{name}}.queries.ts` }],
      srcDir: './queries/postgres/',
      failOnError: true,
      dbUrl: url,
    };
    writeFileSync(join(work, 'config.json'), JSON.stringify(config));
    const noDelay = new URL('./pgtyped-no-delay.mjs', import.meta.url).href; // Nagle's 40 ms waits, about 2 s in all (pgtyped-no-delay.mjs says why)
    const run = spawnSync(process.execPath, ['--import', noDelay, cli, '-c', join(work, 'config.json')], { cwd: work, encoding: 'utf8' });
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    const problems: string[] = [];
    const compiled: CompiledStatement[] = [];
    if (run.status !== 0) problems.push(`pgtyped exited with status ${run.status}`);
    if (/error|invalid|failed/i.test(output)) problems.push(output.trim());
    for (const q of queries) {
      const file = join(outDir, modulePath(q));
      if (!existsSync(file)) {
        problems.push(`${q.file} (${q.name}): pgtyped produced no module`);
        continue;
      }
      const text = readFileSync(file, 'utf8');
      if (/is invalid/.test(text)) problems.push(`${q.file} (${q.name}): ${text.match(/\* (.*)\*\//)?.[1] ?? 'invalid query'}`);
      if (!text.includes(`export const ${q.name} =`)) problems.push(`${q.file} (${q.name}): query missing from pgtyped output`);
      // pgtyped exports helper aliases (DateOrString, NumberOrString, ...) from every module
      // that needs one; kept module-local so generated/postgres/index.ts can `export *` them all.
      const local = text.replace(/^export type (\w+) = /gm, (line, name: string) => (/^I[A-Z]\w*(Params|Result|Query)$/.test(name) ? line : `type ${name} = `));
      writeFileSync(file, `// DO NOT EDIT. Generated by \`npm run codegen\` (pgtyped) from ${q.file}.\n${escapeMarkers(precompiled(q, local, problems))}`);
      compiled.push({ query: q, returnsRows: !/^export type I\w+Result = void;$/m.test(text) });
    }
    if (problems.length) throw new CodegenError(`PostgreSQL codegen failed:\n${problems.join('\n')}`);
    return compiled;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export const postgresGenerator: DialectGenerator = {
  // Column type hints (../../column-hints.ts) are SQLite-only: pgtyped strips only a final
  // `!`/`?`, so the caller would get a column named `col!::bigint`.
  checkStatements: (queries) =>
    queries.flatMap((q) =>
      typeHintedColumns(q.statement).map((c) => `${q.file} (${q.name}): column "${c}": type hints are SQLite-only; PostgreSQL types its columns itself`),
    ),
  generate: (root, queries, outDir) =>
    withCodegenDatabase(async (url) => {
      await applyPostgresSchema(url, root);
      return generatePostgres(url, queries, outDir);
    }),
};
