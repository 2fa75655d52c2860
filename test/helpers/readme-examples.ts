// The runnable examples of README.md and docs/*.md: each ```ts block preceded by a marker line
// `<!-- packaging-test: NAME -->` (blank lines between them allowed: Prettier puts one there), keyed by NAME. test/packaging-hosts.test.ts compiles and runs them
// in projects that installed the packed tarball (test/acp-readme-example.test.ts runs the ACP
// one), so neither the README nor a guide can drift from the package.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BLOCK = /<!-- packaging-test: ([^>]+?) -->\n(?:[ \t]*\n)*```ts\n([\s\S]*?)\n```/g;

export function readmeExamples(readme: string): Map<string, string> {
  const examples = new Map<string, string>();
  for (const [, name, code] of readme.matchAll(BLOCK)) {
    if (examples.has(name)) throw new Error(`README: two examples named ${name}`);
    examples.set(name, `${code}\n`);
  }
  return examples;
}

/** Every marked example in README.md and docs/*.md under `root`, by name (a name used twice, in any two files, throws). */
export function documentedExamples(root = '.'): Map<string, string> {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(root, 'docs', f));
  const examples = new Map<string, string>();
  for (const file of [join(root, 'README.md'), ...docs]) {
    for (const [name, code] of readmeExamples(readFileSync(file, 'utf8'))) {
      if (examples.has(name)) throw new Error(`${file}: an example named ${name} exists already`);
      examples.set(name, code);
    }
  }
  return examples;
}

/** The line in the PostgreSQL worked example that stands for the SQLite program's middle. */
const SAME_PROGRAM = /^\/\/ … the SQLite program above, from `runMigrations\(\)` to `checkHealth\(\)` …$/;

/**
 * The worked example on PostgreSQL, as the README prints it: its own block, whose marker line
 * (SAME_PROGRAM) is replaced by the SQLite program's middle — every line after its
 * `const store = …` and before its `db.close()`. Nothing else is added or left out.
 */
export function composeWorkedExample(sqliteProgram: string, postgresProgram: string): string {
  const sqlite = sqliteProgram.trimEnd().split('\n');
  const postgres = postgresProgram.trimEnd().split('\n');
  const storeLine = sqlite.findIndex((l) => l.startsWith('const store = '));
  const closeLine = sqlite.findIndex((l) => l.startsWith('db.close();'));
  const marker = postgres.findIndex((l) => SAME_PROGRAM.test(l));
  if (storeLine < 0 || closeLine < storeLine || marker < 0 || !postgres[marker - 1]?.startsWith('const store = ')) {
    throw new Error(
      'README: the SQLite worked example must create `store` and end with db.close(); the PostgreSQL one must create `store` and then name the SQLite program',
    );
  }
  return [...postgres.slice(0, marker), ...sqlite.slice(storeLine + 1, closeLine), ...postgres.slice(marker + 1), ''].join('\n');
}
