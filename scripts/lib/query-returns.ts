// The `@returns` line of a query file (src/query-returns.ts says what each value gives the
// caller): read from the file's header, checked against what the statement returns once a
// generator compiled it, and turned into the class each generator constructs.
//
//   /* Reads one kandev_meta key verbatim: no row when absent. */
//   /* @returns maybe-one */
//   /* @name readMetaKey */
//   SELECT m.value FROM kandev_meta AS m WHERE m.key = :key!;
//
// A comment of its own, because pgtyped's parser accepts only comments before `@name` (a `--`
// line is a parse error) and no tag of ours inside the `@name` comment.
import { QUERY_RETURNS, type QueryReturns } from '../../src/query-returns.js';
import { CodegenError } from './codegen-error.js';

const LINE = /^\/\*\s*@returns\b(.*?)\*\/[ \t]*$/gm;
const USAGE = `/* @returns ${QUERY_RETURNS.join('|')} */`;

/** The declared cardinality, from the text before the statement (header comments and `@name`). */
export function declaredReturns(file: string, header: string): QueryReturns {
  const lines = [...header.matchAll(LINE)];
  if (lines.length !== 1)
    throw new CodegenError(`${file}: ${lines.length ? 'more than one @returns line' : 'no @returns line'}: write ${USAGE} on its own line above /* @name … */`);
  const value = lines[0][1].trim();
  if (!(QUERY_RETURNS as readonly string[]).includes(value)) throw new CodegenError(`${file}: @returns "${value}" is none of ${QUERY_RETURNS.join(', ')}`);
  return value as QueryReturns;
}

/** A declaration the compiled statement contradicts: rows declared of a statement that returns
 * none (a write without RETURNING), or `exec` of one that returns rows (declare the rows; the
 * caller may ignore them). */
export function returnsProblems(
  compiled: readonly { readonly query: { readonly file: string; readonly name: string; readonly returns: QueryReturns }; readonly returnsRows: boolean }[],
): string[] {
  return compiled.flatMap(({ query: q, returnsRows }) => {
    if (q.returns === 'exec' && returnsRows) return [`${q.file} (${q.name}): @returns exec, but the statement returns rows: declare one, maybe-one or many`];
    if (q.returns !== 'exec' && !returnsRows)
      return [`${q.file} (${q.name}): @returns ${q.returns}, but the statement returns no rows (no SELECT or RETURNING): declare exec`];
    return [];
  });
}

const CLASS_PART: Record<QueryReturns, string> = { one: 'One', 'maybe-one': 'MaybeOne', many: 'Many', exec: 'Exec' };

/** The runtime class a statement is constructed as: `${prefix}OneQuery`, `${prefix}ExecQuery`, … */
export function returnsClass(prefix: string, returns: QueryReturns): string {
  return `${prefix}${CLASS_PART[returns]}Query`;
}

/** The doc-comment line that says what the function gives, beside the statement's text. */
export function returnsNote(q: { readonly name: string; readonly returns: QueryReturns }, connection: string): string {
  const call = (method: string) => `\`${q.name}.${method}(params, ${connection})\``;
  switch (q.returns) {
    case 'one':
      return ` * \`@returns one\`: ${call('one')} gives its row (a NoRowError if none came back).`;
    case 'maybe-one':
      return ` * \`@returns maybe-one\`: ${call('maybeOne')} gives its row, or undefined when there is none.`;
    case 'many':
      return ` * \`@returns many\`: ${call('many')} gives its rows.`;
    case 'exec':
      return ` * \`@returns exec\`: ${call('exec')} runs it and gives the number of rows it wrote.`;
  }
}
