// The package as a new user meets it (issues 12 and 17, DESIGN §8): `npm pack`, then the
// tarball installed into an empty SQLite-only project and an empty PostgreSQL-only project
// (from the npm cache or registry, never from this worktree), each type-checked with `strict`
// and `skipLibCheck: false`, each running the README's examples exactly as printed with
// nothing prepared beforehand, `require()` from CommonJS, and the CLI (`--help`, `--version`,
// `demo`, `migrate`, `health`) against a real database (a temp SQLite file; databases on the
// test PostgreSQL). The SQLite-only install must hold no pg, the PostgreSQL-only one no
// better-sqlite3 and nothing native, and each names the missing driver when asked for the
// other dialect. The packed file list and @arethetypeswrong/cli are test/packaging-tarball.test.ts's.
// SUBAGENT_CONTEXT_PACKAGING_DRIVERS=oldest (or newest) installs the oldest (newest) driver
// versions the peer ranges admit instead of the ones the rest of the suite runs; .ci/run runs
// test/packaging*.test.ts once with each, so both ends of each peer range are tested.
// better-sqlite3 builds from source here (its prebuilt binaries are not on the npm registry),
// about a minute on an idle machine, so both projects are prepared once, side by side, and
// every test reads from them.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { installedCopies, nativeAddons } from './helpers/consumer-project.js';
import { anyTypesIn } from './helpers/declaration-any.js';
import { sharedPackedPackage, type PackedPackage } from './helpers/packed-package.js';
import { prepareHostProject, type Prepared } from './helpers/host-projects.js';
import { run, type CommandResult } from './helpers/run-command.js';
import { DIALECTS, type Dialect } from './helpers/test-db.js';
import { byDialect } from './helpers/by-dialect.js';
import { manifest, DRIVERS, DRIVER, PRODUCT, DEMO, ONLY_IN } from './helpers/packaging-fixtures.js';

let work: string;
let database: CreatedDatabase;
/** An empty database for `demo --postgres` (it refuses one that holds host tables). */
let demoDatabase: CreatedDatabase;
let packed: PackedPackage;
const prepared = {} as Record<Dialect, Prepared>;
const prepare = (dialect: Dialect) => prepareHostProject(work, packed.tarball, dialect);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'subagent-context-packaging-'));
  database = await createDatabase(inject('pgUrl'), `packaging_${process.pid}`, { replaceExisting: true });
  demoDatabase = await createDatabase(inject('pgUrl'), `packaging_demo_${process.pid}`, { replaceExisting: true });
  packed = await sharedPackedPackage();
  [prepared.sqlite, prepared.postgres] = await Promise.all([prepare('sqlite'), prepare('postgres')]);
}, 25 * 60_000);

afterAll(async () => {
  await database?.drop();
  await demoDatabase?.drop();
  // retries: a failed prepare can leave the other project's npm install still writing for a moment
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
});

/** Runs a compiled program or the installed CLI in a project. */
function runIn(dialect: Dialect, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
  return run(command, args, { cwd: prepared[dialect].project.dir, env: { DATABASE_URL: database.url, ...env } });
}

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

  it(`installs the drivers asked for (${DRIVERS}: better-sqlite3 ${DRIVER['better-sqlite3']}, pg ${DRIVER.pg})`, () => {
    const installed = (dialect: Dialect, name: string) =>
      (JSON.parse(readFileSync(join(prepared[dialect].project.dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    const [sqlite, postgres] = [installed('sqlite', 'better-sqlite3'), installed('postgres', 'pg')];
    if (DRIVERS === 'newest') {
      // The newest a range admits is at least its oldest, in the range's highest major.
      const highestMajor = (range: string) => Math.max(...[...range.matchAll(/\^(\d+)\./g)].map((m) => Number(m[1])));
      expect(Number(sqlite.split('.')[0])).toBe(highestMajor(manifest.peerDependencies['better-sqlite3']));
      expect(Number(postgres.split('.')[0])).toBe(highestMajor(manifest.peerDependencies.pg));
    } else {
      expect(sqlite).toBe(DRIVER['better-sqlite3']);
      expect(postgres).toBe(DRIVER.pg);
    }
  });

  it.each(DIALECTS)('a %s-only host type-checks with strict and skipLibCheck false (NodeNext and Bundler)', (dialect) => {
    const { compiled } = prepared[dialect];
    expect(compiled.output).toBe('');
    expect(compiled.code).toBe(0);
  });

  it('both entries export every product statement with its types under the same names, and no demo statement', async () => {
    const names = {} as Record<Dialect, string[]>;
    for (const dialect of DIALECTS) {
      const out = await runIn(dialect, process.execPath, ['out/exports-check.js']);
      expect(out.code, out.output).toBe(0);
      names[dialect] = JSON.parse(out.stdout) as string[];
      for (const n of [...PRODUCT, ...ONLY_IN[dialect]]) expect(names[dialect], `${dialect}: ${n}`).toContain(n);
      for (const n of DEMO) expect(names[dialect], `${dialect}: ${n}`).not.toContain(n);
    }
    const own = { sqlite: ['createSqliteStore', 'SqlitePreparedQuery'], postgres: ['createPostgresStore', 'PostgresPreparedQuery'] };
    for (const d of DIALECTS) own[d].push(...ONLY_IN[d]);
    expect(ONLY_IN.postgres).toContain('upsertSubagentContextsBatch');
    expect(ONLY_IN.sqlite).toContain('stageBackfillCandidates');
    const shared = (d: Dialect) => names[d].filter((n) => !own[d].includes(n));
    expect(shared('sqlite')).toEqual(shared('postgres'));
    for (const d of DIALECTS) for (const n of own[d]) expect(names[d]).toContain(n);
  });
});

describe('packaging: the README runs as written', () => {
  async function storedRows(dialect: Dialect): Promise<Record<string, unknown>[]> {
    const sql = 'SELECT tool_call_id, tool_status, source, settled_at IS NOT NULL AS settled FROM task_session_subagents';
    if (byDialect(dialect, { sqlite: false, postgres: true })) return (await database.pool().query(sql)).rows as Record<string, unknown>[];
    const db = new Database(join(prepared.sqlite.project.dir, 'kandev.db'), { readonly: true });
    try {
      return (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => ({ ...r, settled: r.settled === 1 }));
    } finally {
      db.close();
    }
  }

  it.each(DIALECTS)('on %s, in an empty project and database: the worked example, the typed query in a host transaction, then the CLI', async (dialect) => {
    // Nothing prepared: the control that the project and database really are empty.
    if (byDialect(dialect, { sqlite: true, postgres: false })) expect(existsSync(join(prepared.sqlite.project.dir, 'kandev.db'))).toBe(false);
    else expect((await database.pool().query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n).toBe(0);

    const started = performance.now();
    const worked = await runIn(dialect, process.execPath, ['out/worked-example.js']);
    const seconds = (performance.now() - started) / 1000;
    expect(worked.stderr).toBe('');
    expect(worked.code).toBe(0);
    expect(worked.stdout).toMatch(/ok: true/);
    expect(worked.stdout).not.toMatch(/status: 'failed'|error: '|no such table/);
    expect(worked.stdout.split('\n').filter((l) => l === 'persisted')).toHaveLength(2);
    expect(worked.stdout).toMatch(/tool_status: 'completed'/);
    expect(worked.stdout).toMatch(/state: 'activated'/);
    expect(worked.stdout).toMatch(/verdict: 'healthy'/);
    // It ends its connection: an open pg pool keeps Node running until its idle clients time
    // out, 10 s (pg's idleTimeoutMillis) after the last query, so it would take longer than that.
    expect(seconds).toBeLessThan(9.5);
    expect(await storedRows(dialect)).toEqual([{ tool_call_id: 'toolu_01ReviewSecurity', tool_status: 'completed', source: 'live', settled: true }]);

    const typed = await runIn(dialect, process.execPath, ['out/typed-queries.js']);
    expect(typed.stderr).toBe('');
    expect(typed.code).toBe(0);
    const isAsync = byDialect(dialect, { sqlite: '1n', postgres: '1' });
    expect(typed.stdout).toMatch(
      new RegExp(`^toolu_01ReviewSecurity completed null \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z\\n${isAsync} true\\n$`),
    );

    const target = byDialect(dialect, { sqlite: ['--sqlite', 'kandev.db'], postgres: ['--postgres', database.url] });
    const migrate = await runIn(dialect, CLI, ['migrate', ...target, '--json']);
    expect(migrate.code, migrate.output).toBe(0);
    const steps = (JSON.parse(migrate.stdout) as { steps: { status: string; error?: string; detail?: string }[] }).steps;
    expect(steps.every((s) => s.status === 'skipped' && s.error === undefined && /already current/.test(s.detail ?? ''))).toBe(true);
    const health = await runIn(dialect, CLI, ['health', ...target]);
    expect(health.code, health.output).toBe(0); // 0 = healthy (docs/health.md)
  });
});

const CLI = join('node_modules', '.bin', 'subagent-context');

describe('packaging: README paths (b) and (d), a backend without the host tables, then its report rendered', () => {
  it('on sqlite: createHostTables, runMigrations, then formatReport and renderReportHtml, as printed', async () => {
    const dir = prepared.sqlite.project.dir;
    expect(existsSync(join(dir, 'app.db'))).toBe(false); // nothing prepared
    const out = await runIn('sqlite', process.execPath, ['out/standalone-backend.js']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/ok: true/);
    expect(out.stdout).not.toMatch(/missing_host_tables|status: 'failed'/);
    expect(out.stdout).toMatch(/subagent/i); // the terminal text of an empty store still says what it read
    expect(out.stdout).not.toMatch(/\[AC-\d/); // no spec codes in what a user reads
    const page = readFileSync(join(dir, 'fan-out.html'), 'utf8');
    expect(page).toMatch(/^<!doctype html>/i);
    expect(page.trimEnd()).toMatch(/<\/html>$/);
    const db = new Database(join(dir, 'app.db'), { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(expect.arrayContaining(['kandev_meta', 'task_session_messages', 'task_session_subagents', 'task_sessions']));
    } finally {
      db.close();
    }
  });
});

describe('packaging: the CLI and CommonJS in a one-driver project', () => {
  it.each(DIALECTS)('on %s: --help and --version', async (dialect) => {
    const help = await runIn(dialect, CLI, ['--help']);
    expect(help.code, help.output).toBe(0);
    expect(help.stdout).toMatch(/^usage: subagent-context <command>/);
    const version = await runIn(dialect, CLI, ['--version']);
    expect(version.code, version.output).toBe(0);
    expect(version.stdout).toBe(`${manifest.version}\n`);
  });

  it('the demo runs in each project on its own driver', async () => {
    const sqlite = await runIn('sqlite', CLI, ['demo']);
    expect(sqlite.stderr).toBe('');
    expect(sqlite.code).toBe(0);
    expect(existsSync(join(prepared.sqlite.project.dir, 'subagent-context-demo.db'))).toBe(true);
    const postgres = await runIn('postgres', CLI, ['demo', '--postgres', demoDatabase.url]);
    expect(postgres.stderr).toBe('');
    expect(postgres.code).toBe(0);
  }, 120_000);

  it('asked for the other dialect, each names the driver to install, in one line, exit 8', async () => {
    // pg found only on NODE_PATH (a global install), which CommonJS searches and `import` does not: still not installed.
    const globalPg = { NODE_PATH: join(prepared.postgres.project.dir, 'node_modules') };
    const cases = [
      { dialect: 'sqlite', args: ['health', '--postgres', database.url], driver: 'pg' },
      { dialect: 'sqlite', args: ['health', '--postgres', database.url], driver: 'pg', env: globalPg },
      { dialect: 'sqlite', args: ['demo', '--postgres', demoDatabase.url], driver: 'pg' },
      { dialect: 'postgres', args: ['migrate', '--sqlite', 'kandev.db'], driver: 'better-sqlite3' },
      { dialect: 'postgres', args: ['demo'], driver: 'better-sqlite3' },
    ] as const;
    writeFileSync(join(prepared.postgres.project.dir, 'kandev.db'), ''); // a file to point at: the driver is what is missing
    for (const c of cases) {
      const out = await runIn(c.dialect, CLI, c.args, 'env' in c ? c.env : {});
      expect(out.stdout, c.args.join(' ')).toBe('');
      expect(out.stderr, c.args.join(' ')).toMatch(
        new RegExp(`^subagent-context: the (SQLite|PostgreSQL) driver is not installed: npm install ${c.driver}( \\(.*\\))?\\n$`),
      );
      expect(out.code, c.args.join(' ')).toBe(8);
    }
    // Through npx, `npm install` in the folder would not reach the package npx runs: the line says how to name the driver to npx.
    const npx = await runIn('postgres', 'npm', ['exec', '--no', '--', 'subagent-context', 'migrate', '--sqlite', 'kandev.db']);
    expect(npx.stderr).toContain(
      'the SQLite driver is not installed: npm install better-sqlite3 (with npx: npx -p subagent-context -p better-sqlite3 subagent-context …)\n',
    );
    expect(npx.code).toBe(8);
  });

  it("the proxy without its store's driver: the session runs, unrecorded, and its one WARN says what to install (npx installs no optional driver)", async () => {
    const cases = [
      { dialect: 'postgres', args: [], driver: 'better-sqlite3' }, // the default store: SQLite, in the data directory
      { dialect: 'sqlite', args: ['--postgres', database.url], driver: 'pg' },
    ] as const;
    const agent = [process.execPath, '-e', 'setTimeout(() => process.exit(3), 4000)']; // time for the writer to try the store
    const runs = await Promise.all(
      cases.map((c) =>
        run(CLI, ['proxy', ...c.args, '--', ...agent], { cwd: prepared[c.dialect].project.dir, env: { XDG_DATA_HOME: join(work, `data-${c.dialect}`) } }),
      ),
    );
    for (const [i, out] of runs.entries()) {
      expect(out.code, out.stderr).toBe(3);
      const driver = cases[i].driver;
      expect(out.stderr).toContain(
        `WARN cannot record: the ${driver === 'pg' ? 'PostgreSQL' : 'SQLite'} driver is not installed: npm install ${driver} beside`,
      );
      expect(out.stderr).toContain(`npx -p subagent-context -p ${driver} subagent-context proxy`);
    }
  }, 60_000);

  it.each(DIALECTS)('on %s: CommonJS require() of every entry works at run time', async (dialect) => {
    const out = await runIn(dialect, process.execPath, ['out/require-check.cjs']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('function function function true\n');
  });
});

// What the tarball installs as, read in the SQLite-only project's node_modules.
describe('packaging: the tarball', () => {
  it('has no runtime dependencies, and declares what a registry page shows', () => {
    expect(manifest.dependencies ?? {}).toEqual({});
    const installed = join(prepared.sqlite.project.dir, 'node_modules');
    expect(existsSync(join(installed, '@pgtyped')), 'nothing of pgtyped is installed').toBe(false);
    const published = JSON.parse(readFileSync(join(installed, 'subagent-context', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(published.license).toBe('MIT');
    expect((published.keywords as string[]).length).toBeGreaterThan(3);
    expect(published.sideEffects).toEqual(['./dist/src/cli.js']);
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
    writeFileSync(join(work, 'control.d.ts'), 'export declare const leaked: any;\n');
    expect(anyTypesIn([join(work, 'control.d.ts')]).length, 'the check finds `any` where it is').toBeGreaterThan(0);
    expect(anyTypesIn(declarations)).toEqual([]);
  });
});
