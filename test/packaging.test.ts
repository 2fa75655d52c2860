// The package as a new user meets it (issue 12, DESIGN §8): `npm pack`, then the tarball
// installed into an empty SQLite-only project and an empty PostgreSQL-only project (from the
// npm cache or registry, never from this worktree), each type-checked with `strict` and
// `skipLibCheck: false`, each running the README's examples and the CLI against a real
// database (a temp SQLite file; a database on the test PostgreSQL). The SQLite-only install
// must hold no pg, the PostgreSQL-only one no better-sqlite3 and nothing native.
// better-sqlite3 builds from source here (its prebuilt binaries are not on the npm registry),
// about a minute on an idle machine, so both projects are prepared once, side by side, and
// every test reads from them.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { pascal, parseDialect } from '../scripts/lib/query-files.js';
import { compile, createConsumerProject, installedCopies, nativeAddons, type ConsumerProject } from './helpers/consumer-project.js';
import { anyTypesIn } from './helpers/declaration-any.js';
import { packPackage, type PackedPackage } from './helpers/packed-package.js';
import { composeWorkedExample, readmeExamples } from './helpers/readme-examples.js';
import { run, type CommandResult } from './helpers/run-command.js';

type Dialect = 'sqlite' | 'postgres';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
  devDependencies: Record<string, string>;
};
const dev = manifest.devDependencies;
/** Exactly the driver and type versions the rest of the suite runs, so the npm cache has them. */
const INSTALLS: Record<Dialect, readonly string[]> = {
  sqlite: [`better-sqlite3@${dev['better-sqlite3']}`, `@types/better-sqlite3@${dev['@types/better-sqlite3']}`, `@types/node@${dev['@types/node']}`],
  postgres: [`pg@${dev.pg}`, `@types/pg@${dev['@types/pg']}`, `@types/node@${dev['@types/node']}`],
};

const queries = parseDialect('.', 'sqlite');
const PRODUCT = queries.filter((q) => q.group.folder === '').map((q) => q.name);
const DEMO = queries.filter((q) => q.group.folder === 'demo').map((q) => q.name);
const EXAMPLES = readmeExamples(readFileSync('README.md', 'utf8'));
const SESSION = 'ses-1'; // the session the README's examples record into

function example(name: string): string {
  const code = EXAMPLES.get(name);
  if (code === undefined) throw new Error(`README has no example marked <!-- packaging-test: ${name} -->`);
  return code;
}

/** A program naming every product statement's function and types from the dialect's entry,
 * and expecting the demo's to be absent; it prints the entry's runtime export names. */
function exportsCheck(dialect: Dialect): string {
  return [
    `import * as entry from 'subagent-context/${dialect}';`,
    `export const statements = [${PRODUCT.map((n) => `entry.${n}`).join(', ')}];`,
    ...PRODUCT.map((n) => `export type T_${n} = [entry.I${pascal(n)}Params, entry.I${pascal(n)}Result, entry.I${pascal(n)}Query];`),
    ...DEMO.flatMap((n) => ['// @ts-expect-error the demo statements are not exported', `export type D_${n} = entry.I${pascal(n)}Result;`]),
    'console.log(JSON.stringify(Object.keys(entry).sort()));',
    '',
  ].join('\n');
}

interface Prepared {
  readonly project: ConsumerProject;
  readonly compiled: { nodenext: CommandResult; bundler: CommandResult };
}

let work: string;
let database: CreatedDatabase;
let packed: PackedPackage;
const prepared = {} as Record<Dialect, Prepared>;

async function prepare(dialect: Dialect): Promise<Prepared> {
  const project = await createConsumerProject(join(work, `host-${dialect}`), {
    packages: [packed.tarball, ...INSTALLS[dialect]],
    ...(dialect === 'sqlite'
      ? // Build better-sqlite3 from source at once: its prebuilt binaries live outside the npm registry.
        { allowScripts: { 'better-sqlite3': true }, env: { npm_config_build_from_source: 'true' } }
      : {}),
  });
  if (project.install.code !== 0) throw new Error(`npm install (${dialect}) failed:\n${project.install.output}`);
  const worked =
    dialect === 'sqlite'
      ? `${example('sqlite/worked-example.ts')}db.close();\n`
      : `${composeWorkedExample(example('sqlite/worked-example.ts'), example('postgres/worked-example.ts header'))}await pool.end();\n`;
  writeFileSync(join(project.dir, 'worked-example.ts'), worked);
  writeFileSync(join(project.dir, 'typed-queries.ts'), example(`${dialect}/typed-queries.ts`));
  writeFileSync(join(project.dir, 'exports-check.ts'), exportsCheck(dialect));
  return { project, compiled: await compile(project.dir) };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'subagent-context-packaging-'));
  database = await createDatabase(inject('pgUrl'), `packaging_${process.pid}`, { replaceExisting: true });
  packed = await packPackage(work);
  [prepared.sqlite, prepared.postgres] = await Promise.all([prepare('sqlite'), prepare('postgres')]);
}, 20 * 60_000);

afterAll(async () => {
  await database?.drop();
  // retries: a failed prepare can leave the other project's npm install still writing for a moment
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
});

/** Runs a compiled program or the installed CLI in a project. */
function runIn(dialect: Dialect, command: string, args: readonly string[]): Promise<CommandResult> {
  return run(command, args, { cwd: prepared[dialect].project.dir, env: { DATABASE_URL: database.url } });
}

describe('packaging: the tarball', () => {
  it('ships the entries, the CLI, every .sql and the declarations, and nothing else', () => {
    const files = new Set(packed.files);
    const targets = [...Object.values(manifest.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))), ...Object.values(manifest.bin)].map(
      (p) => p.replace(/^\.\//, ''),
    );
    for (const t of targets) expect(files.has(t), t).toBe(true);
    for (const dir of ['queries', 'schema']) {
      const sql = (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.sql')).map((f) => join(dir, f));
      expect(sql.length).toBeGreaterThan(0);
      expect(
        packed.files.filter((f) => f.startsWith(`${dir}/`)),
        dir,
      ).toEqual(sql.sort());
    }
    const outside = packed.files.filter(
      (f) => !/^(dist\/(src|generated)\/.*\.(js|d\.ts|js\.map)|(queries|schema)\/.*\.sql|package\.json|README\.md|CHANGELOG\.md)$/.test(f),
    );
    expect(outside).toEqual([]);
    expect(packed.files.some((f) => f.startsWith('dist/test') || f.startsWith('dist/scripts'))).toBe(false);
  });

  it('carries the sources of its source maps inside them (no map points at a file it does not ship)', () => {
    const installed = join(prepared.sqlite.project.dir, 'node_modules', 'subagent-context');
    const maps = packed.files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const f of maps) {
      const map = JSON.parse(readFileSync(join(installed, f), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sourcesContent?.length, f).toBe(map.sources.length);
      expect(
        map.sourcesContent?.every((s) => typeof s === 'string' && s.length > 0),
        f,
      ).toBe(true);
    }
  });

  it('publishes declarations without `any`', () => {
    const installed = join(prepared.sqlite.project.dir, 'node_modules');
    const declarations = packed.files.filter((f) => f.endsWith('.d.ts')).map((f) => join(installed, 'subagent-context', f));
    expect(declarations.length).toBeGreaterThan(50);
    expect(anyTypesIn([join(installed, '@pgtyped', 'runtime', 'lib', 'tag.d.ts')]).length, 'the check finds `any` where it is').toBeGreaterThan(0);
    expect(anyTypesIn(declarations)).toEqual([]);
  });
});

describe('packaging: a host with one driver', () => {
  it('the SQLite-only install holds no pg; the PostgreSQL-only install holds no better-sqlite3 and builds nothing native', () => {
    const sqliteDir = prepared.sqlite.project.dir;
    const postgresDir = prepared.postgres.project.dir;
    expect(installedCopies(sqliteDir, 'better-sqlite3')).toHaveLength(1); // the control: the walk finds what is there
    expect(nativeAddons(sqliteDir).some((f) => f.endsWith('better_sqlite3.node'))).toBe(true);
    expect(installedCopies(sqliteDir, 'pg')).toEqual([]);
    expect(installedCopies(sqliteDir, '@types/pg')).toEqual([]);
    expect(installedCopies(postgresDir, 'pg')).toHaveLength(1);
    expect(installedCopies(postgresDir, 'better-sqlite3')).toEqual([]);
    expect(installedCopies(postgresDir, '@types/better-sqlite3')).toEqual([]);
    expect(nativeAddons(postgresDir)).toEqual([]);
  });

  it.each(['sqlite', 'postgres'] as const)('a %s-only host type-checks with strict and skipLibCheck false (NodeNext and Bundler)', (dialect) => {
    const { nodenext, bundler } = prepared[dialect].compiled;
    expect(nodenext.output).toBe('');
    expect(nodenext.code).toBe(0);
    expect(bundler.output).toBe('');
    expect(bundler.code).toBe(0);
  });

  it('both entries export every product statement with its types under the same names, and no demo statement', async () => {
    const names = {} as Record<Dialect, string[]>;
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const out = await runIn(dialect, process.execPath, ['out/exports-check.js']);
      expect(out.code, out.output).toBe(0);
      names[dialect] = JSON.parse(out.stdout) as string[];
      for (const n of PRODUCT) expect(names[dialect], `${dialect}: ${n}`).toContain(n);
      for (const n of DEMO) expect(names[dialect], `${dialect}: ${n}`).not.toContain(n);
    }
    const own = { sqlite: ['createSqliteStore', 'SqlitePreparedQuery'], postgres: ['createPostgresStore'] };
    const shared = (d: Dialect) => names[d].filter((n) => !own[d].includes(n));
    expect(shared('sqlite')).toEqual(shared('postgres'));
    for (const d of ['sqlite', 'postgres'] as const) for (const n of own[d]) expect(names[d]).toContain(n);
  });
});

describe('packaging: the README runs as written', () => {
  /** The host as the README assumes it: its tables (from the installed package's schema/host
   * fixture) and the session the example records into. */
  async function seedHost(dialect: Dialect): Promise<void> {
    const hostDdl = readFileSync(
      join(prepared[dialect].project.dir, 'node_modules', 'subagent-context', 'schema', 'host', dialect, '001_host_tables.sql'),
      'utf8',
    );
    const session = `INSERT INTO task_sessions (id, task_id, created_at, updated_at) VALUES ('${SESSION}', 'task-42', '2026-01-01 00:00:00', '2026-01-01 00:00:00')`;
    if (dialect === 'sqlite') {
      const db = new Database(join(prepared.sqlite.project.dir, 'kandev.db'));
      db.exec(hostDdl);
      db.exec(session);
      db.close();
    } else {
      const pool = database.pool();
      await pool.query(hostDdl);
      await pool.query(session);
    }
  }

  async function storedRows(dialect: Dialect): Promise<Record<string, unknown>[]> {
    const sql = 'SELECT tool_call_id, tool_status, source, settled_at IS NOT NULL AS settled FROM task_session_subagents';
    if (dialect === 'postgres') return (await database.pool().query(sql)).rows as Record<string, unknown>[];
    const db = new Database(join(prepared.sqlite.project.dir, 'kandev.db'), { readonly: true });
    try {
      return (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => ({ ...r, settled: r.settled === 1 }));
    } finally {
      db.close();
    }
  }

  it.each(['sqlite', 'postgres'] as const)('on %s: the worked example, the typed query in a host transaction, then the CLI', async (dialect) => {
    await seedHost(dialect);

    const worked = await runIn(dialect, process.execPath, ['out/worked-example.js']);
    expect(worked.stderr).toBe('');
    expect(worked.code).toBe(0);
    expect(worked.stdout).toMatch(/ok: true/);
    expect(worked.stdout.split('\n').filter((l) => l === 'persisted')).toHaveLength(2);
    expect(worked.stdout).toMatch(/tool_status: 'completed'/);
    expect(worked.stdout).toMatch(/state: 'activated'/);
    expect(worked.stdout).toMatch(/verdict: 'healthy'/);
    expect(await storedRows(dialect)).toEqual([{ tool_call_id: 'toolu_01ReviewSecurity', tool_status: 'completed', source: 'live', settled: true }]);

    const typed = await runIn(dialect, process.execPath, ['out/typed-queries.js']);
    expect(typed.stderr).toBe('');
    expect(typed.code).toBe(0);
    expect(typed.stdout).toMatch(/^toolu_01ReviewSecurity completed null \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z\n$/);

    const target = dialect === 'sqlite' ? ['--sqlite', 'kandev.db'] : ['--postgres', database.url];
    const cli = join('node_modules', '.bin', 'subagent-context');
    const migrate = await runIn(dialect, cli, ['migrate', ...target]);
    expect(migrate.code, migrate.output).toBe(0);
    const health = await runIn(dialect, cli, ['health', ...target]);
    expect(health.code, health.output).toBe(0); // 0 = healthy (docs/health.md)
  });
});
