// What the packaging tests install and check, read from this repository: package.json (the
// manifest, and the driver versions SUBAGENT_CONTEXT_PACKAGING_DRIVERS picks from its peer
// ranges), the product and demo statements, and the examples of README.md and docs/*.md and the programs built
// from them for a consumer project.
import { readFileSync } from 'node:fs';
import { pascal, parseDialect } from '../../scripts/lib/query-files.js';
import { documentedExamples } from './readme-examples.js';
import type { Dialect } from './test-db.js';

export const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const dev = manifest.devDependencies;

/** The oldest version a peer range of carets admits (`^8.10.0` → 8.10.0; `^9.0.0 || ^12.0.0` → 9.0.0). */
function oldest(range: string): string {
  const versions = range.split('||').map((alternative) => {
    const m = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
    if (!m) throw new Error(`peer range ${range}: expected ^MAJOR.MINOR.PATCH alternatives`);
    return m.slice(1).map(Number);
  });
  versions.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  return versions[0].join('.');
}
export const DRIVERS = process.env.SUBAGENT_CONTEXT_PACKAGING_DRIVERS ?? 'tested';
if (!['tested', 'oldest', 'newest'].includes(DRIVERS)) throw new Error(`SUBAGENT_CONTEXT_PACKAGING_DRIVERS=${DRIVERS}: expected oldest or newest`);
/** The drivers installed: by default exactly the versions the rest of the suite runs (so the npm
 * cache has them); `oldest`: each peer range's minimum; `newest`: the range itself, which npm
 * resolves to the newest version it admits. */
function driverVersion(name: 'better-sqlite3' | 'pg'): string {
  const range = manifest.peerDependencies[name];
  return DRIVERS === 'oldest' ? oldest(range) : DRIVERS === 'newest' ? range : dev[name];
}
export const DRIVER = { 'better-sqlite3': driverVersion('better-sqlite3'), pg: driverVersion('pg') };
export const INSTALLS: Record<Dialect, readonly string[]> = {
  sqlite: [`better-sqlite3@${DRIVER['better-sqlite3']}`, `@types/better-sqlite3@${dev['@types/better-sqlite3']}`, `@types/node@${dev['@types/node']}`],
  postgres: [`pg@${DRIVER.pg}`, `@types/pg@${dev['@types/pg']}`, `@types/node@${dev['@types/node']}`],
};

const queries = parseDialect('.', 'sqlite');
const productOf = (qs: ReturnType<typeof parseDialect>) => qs.filter((q) => q.group.folder === '').map((q) => q.name);
const sqliteProduct = productOf(queries);
const postgresProduct = productOf(parseDialect('.', 'postgres'));
/** Product statements both dialects have. */
export const PRODUCT = sqliteProduct.filter((n) => postgresProduct.includes(n));
export const DEMO = queries.filter((q) => q.group.folder === 'demo').map((q) => q.name);
/** Product statements only one dialect has (scripts/lib/query-files.ts DIALECT_ONLY). */
export const ONLY_IN: Record<Dialect, readonly string[]> = {
  sqlite: sqliteProduct.filter((n) => !postgresProduct.includes(n)),
  postgres: postgresProduct.filter((n) => !sqliteProduct.includes(n)),
};
const EXAMPLES = documentedExamples();

export function example(name: string): string {
  const code = EXAMPLES.get(name);
  if (code === undefined) throw new Error(`neither README.md nor docs/*.md has an example marked <!-- packaging-test: ${name} -->`);
  return code;
}

/** A program naming every product statement's function and types from the dialect's entry,
 * and expecting the demo's to be absent; it prints the entry's runtime export names. */
export function exportsCheck(dialect: Dialect): string {
  const product = [...PRODUCT, ...ONLY_IN[dialect]];
  return [
    `import * as entry from 'subagent-context/${dialect}';`,
    `export const statements = [${product.map((n) => `entry.${n}`).join(', ')}];`,
    ...product.map((n) => `export type T_${n} = [entry.I${pascal(n)}Params, entry.I${pascal(n)}Result, entry.I${pascal(n)}Query];`),
    ...DEMO.flatMap((n) => ['// @ts-expect-error the demo statements are not exported', `export type D_${n} = entry.I${pascal(n)}Result;`]),
    'console.log(JSON.stringify(Object.keys(entry).sort()));',
    '',
  ].join('\n');
}

/** CommonJS: TypeScript's `import = require()` of every entry, compiled to `require()` (a .cts file). */
export const REQUIRE_CHECK = [
  "import main = require('subagent-context');",
  "import sqlite = require('subagent-context/sqlite');",
  "import postgres = require('subagent-context/postgres');",
  'const error: main.SubagentContextError = new main.SubagentContextError("x", "y");',
  'console.log(typeof main.createSqliteStore, typeof sqlite.toSubagentContextRow, typeof postgres.toSubagentContextRow, error instanceof Error);',
  '',
].join('\n');
