// The README's runnable examples: each ```ts block preceded by a marker line
// `<!-- packaging-test: NAME -->` (blank lines between them allowed: Prettier puts one there), keyed by NAME. test/packaging.test.ts compiles and runs them
// in projects that installed the packed tarball, so the README cannot drift from the package.
const BLOCK = /<!-- packaging-test: ([^>]+?) -->\n(?:[ \t]*\n)*```ts\n([\s\S]*?)\n```/g;

export function readmeExamples(readme: string): Map<string, string> {
  const examples = new Map<string, string>();
  for (const [, name, code] of readme.matchAll(BLOCK)) {
    if (examples.has(name)) throw new Error(`README: two examples named ${name}`);
    examples.set(name, `${code}\n`);
  }
  return examples;
}

/** The worked example on PostgreSQL: the README's PostgreSQL header (connection and store),
 * then the SQLite program after its own `const store = …` line. */
export function composeWorkedExample(sqliteProgram: string, postgresHeader: string): string {
  const lines = sqliteProgram.split('\n');
  const storeLine = lines.findIndex((l) => l.startsWith('const store = '));
  if (storeLine < 0 || !postgresHeader.includes('const store = ')) throw new Error('README: each worked-example part must create `store`');
  return `${postgresHeader.trimEnd()}\n${lines.slice(storeLine + 1).join('\n')}`;
}
