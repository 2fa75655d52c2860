// Issue #31 item 3: cardinality declared per statement. Each .sql file says what its caller gets
// (`/* @returns one|maybe-one|many|exec */` above `@name`); codegen fails on a missing, unknown or
// contradicted declaration, and constructs the statement as the class of its cardinality, whose
// method returns the row, the row or undefined, the rows, or the count written. A `one` that
// returns no row throws NoRowError on both dialects, and src/ indexes no statement's rows by hand.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import * as postgresGenerated from '../generated/postgres/index.js';
import * as sqliteGenerated from '../generated/sqlite/index.js';
import { createDatabase, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { DIALECTS, parseDialect } from '../scripts/lib/query-files.js';
import { declaredReturns, returnsClass, returnsProblems } from '../scripts/lib/query-returns.js';
import { NoRowError, SubagentContextError } from '../src/errors.js';
import { PostgresExecQuery, PostgresManyQuery, PostgresMaybeOneQuery, PostgresOneQuery } from '../src/postgres/prepared-query.js';
import { SqliteExecQuery, SqliteManyQuery, SqliteMaybeOneQuery, SqliteOneQuery } from '../src/sqlite/prepared-query.js';
import { byDialect } from './helpers/by-dialect.js';
import { runCodegen } from './helpers/codegen-run.js';
import { describeBothDialects, openTestDb, type TestDb } from './helpers/test-db.js';

const CODEGEN_RUN_MS = 180_000;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('@returns: the declaration', () => {
  it('reads the one line above @name, and refuses none, two, or an unknown value, naming the file', () => {
    const header = (...lines: string[]) => ['/* Reads a key. */', ...lines, '/* @name readX */\n'].join('\n');
    expect(declaredReturns('q.sql', header('/* @returns maybe-one */'))).toBe('maybe-one');
    expect(declaredReturns('q.sql', header('/*  @returns exec  */'))).toBe('exec');
    expect(() => declaredReturns('q.sql', header())).toThrow(/^q\.sql: no @returns line: write \/\* @returns one\|maybe-one\|many\|exec \*\//);
    expect(() => declaredReturns('q.sql', header('/* @returns one */', '/* @returns many */'))).toThrow(/^q\.sql: more than one @returns line/);
    expect(() => declaredReturns('q.sql', header('/* @returns first */'))).toThrow('q.sql: @returns "first" is none of one, maybe-one, many, exec');
    // Prose in the header comment is no declaration.
    expect(() => declaredReturns('q.sql', '/*\n * This statement @returns one row.\n */\n/* @name readX */\n')).toThrow(/no @returns line/);
  });

  it('is contradicted by a statement that returns no rows when rows are declared, and by rows declared exec', () => {
    const q = (returns: 'one' | 'maybe-one' | 'many' | 'exec') => ({ file: 'q.sql', name: 'x', returns });
    expect(
      returnsProblems([
        { query: q('one'), returnsRows: true },
        { query: q('exec'), returnsRows: false },
      ]),
    ).toEqual([]);
    expect(returnsProblems([{ query: q('many'), returnsRows: false }])).toEqual([
      'q.sql (x): @returns many, but the statement returns no rows (no SELECT or RETURNING): declare exec',
    ]);
    expect(returnsProblems([{ query: q('exec'), returnsRows: true }])).toEqual([
      'q.sql (x): @returns exec, but the statement returns rows: declare one, maybe-one or many',
    ]);
  });

  it('every statement of both dialects declares one, the same on both, and its module constructs that class', () => {
    const declared = new Map<string, string>();
    for (const d of DIALECTS) {
      const queries = parseDialect('.', d);
      expect(queries.length, d).toBeGreaterThan(30);
      for (const q of queries) {
        const key = join(q.group.folder, q.fileBase);
        expect(declared.get(key) ?? q.returns, `${d}/${key}`).toBe(q.returns);
        declared.set(key, q.returns);
        const module = readFileSync(join('generated', d, q.group.folder, `${q.fileBase}.queries.ts`), 'utf8');
        const prefix = byDialect(d, { sqlite: 'Sqlite', postgres: 'Postgres' });
        expect(module, `${d}/${key}`).toContain(`export const ${q.name} = new ${returnsClass(prefix, q.returns)}<`);
        expect(module, `${d}/${key}`).toContain(` * \`@returns ${q.returns}\`: `);
      }
    }
    expect(new Set(declared.values())).toEqual(new Set(['one', 'maybe-one', 'many', 'exec']));
    const generated = { sqlite: sqliteGenerated, postgres: postgresGenerated };
    expect(generated.sqlite.readMetaKey).toBeInstanceOf(SqliteMaybeOneQuery);
    expect(generated.postgres.readMetaKey).toBeInstanceOf(PostgresMaybeOneQuery);
    expect(generated.sqlite.probeStoreTables).toBeInstanceOf(SqliteOneQuery);
    expect(generated.postgres.upsertMetaKey).toBeInstanceOf(PostgresExecQuery);
  });

  it("src/ takes a statement's rows through its cardinality: no [0] or [row] destructuring of rows, no hand-written 'returned no row'", () => {
    const offenders = sources('src')
      .filter((f) => !f.endsWith('prepared-query.ts') && !f.endsWith('named-statement.ts') && f !== join('src', 'errors.ts'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            /\.(run|rows|all)\([^;]*\)\)\[0\]|const \[\w+\] = (await )?[\w.]+\.(run|rows|all)\(|returned no row/.test(line)
              ? [`${f}:${i + 1}: ${line.trim()}`]
              : [],
          ),
      );
    expect(offenders).toEqual([]);
  });
});

describeBothDialects('@returns: the generated methods', (dialect) => {
  let db: TestDb;
  beforeEach(async () => {
    db = await openTestDb(dialect, 'package');
  });
  afterEach(() => db.close());

  /** A query of each class over `sql` (written for the dialect), run on the test database. A
   * name means one statement (the SQLite runtime caches by name), so each text gets its own. */
  let texts = 0;
  function run(sql: { sqlite: string; postgres: string }) {
    const text = byDialect(dialect, sql);
    const n = ++texts;
    return byDialect(dialect, {
      sqlite: () => {
        const c = db.sqlite!;
        return {
          one: async () => new SqliteOneQuery<Record<string, never>, { x: unknown }>(`testOne${n}`, text, []).one({}, c),
          maybeOne: async () => new SqliteMaybeOneQuery<Record<string, never>, { x: unknown }>(`testMaybeOne${n}`, text, []).maybeOne({}, c),
          many: async () => new SqliteManyQuery<Record<string, never>, { x: unknown }>(`testMany${n}`, text, []).many({}, c),
          exec: async () => new SqliteExecQuery<Record<string, never>, void>(`testExec${n}`, text, []).exec({}, c),
        };
      },
      postgres: () => {
        const c = db.pool!;
        return {
          one: () => new PostgresOneQuery<void, { x: unknown }>(`testOne${n}`, text, []).one(undefined, c),
          maybeOne: () => new PostgresMaybeOneQuery<void, { x: unknown }>(`testMaybeOne${n}`, text, []).maybeOne(undefined, c),
          many: () => new PostgresManyQuery<void, { x: unknown }>(`testMany${n}`, text, []).many(undefined, c),
          exec: () => new PostgresExecQuery<void, void>(`testExec${n}`, text, []).exec(undefined, c),
        };
      },
    })();
  }

  it('one gives the row, and throws NoRowError naming the statement when none came back', async () => {
    const some = run({ sqlite: 'SELECT 7 AS x', postgres: 'SELECT 7 AS x' });
    expect(Number((await some.one()).x)).toBe(7);
    const none = run({ sqlite: 'SELECT 7 AS x WHERE 1 = 0', postgres: 'SELECT 7 AS x WHERE false' });
    const err = await none.one().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoRowError);
    // A defect, not a code of the contract: store methods wrap it as database_error (src/errors.ts).
    expect(err).not.toBeInstanceOf(SubagentContextError);
    expect(err).toMatchObject({ name: 'NoRowError', query: 'testOne2', message: 'testOne2 returned no row (its .sql declares `@returns one`)' });
    expect(await none.maybeOne()).toBeUndefined();
    expect(await none.many()).toEqual([]);
  });

  it('maybeOne gives the first row, many every row in order, exec the count of rows written', async () => {
    const two = run({ sqlite: 'SELECT 1 AS x UNION ALL SELECT 2 ORDER BY 1', postgres: 'SELECT 1 AS x UNION ALL SELECT 2 ORDER BY 1' });
    expect(Number((await two.maybeOne())?.x)).toBe(1);
    expect((await two.many()).map((r) => Number(r.x))).toEqual([1, 2]);
    await db.exec("INSERT INTO kandev_meta (key, value) VALUES ('a', '1'), ('b', '2'), ('c', '3')");
    const write = run({ sqlite: "UPDATE kandev_meta SET value = 'x' WHERE key <> 'c'", postgres: "UPDATE kandev_meta SET value = 'x' WHERE key <> 'c'" });
    expect(await write.exec()).toBe(2);
    const g = byDialect(dialect, {
      sqlite: () => sqliteGenerated.writeMetaKeyOnce.exec({ key: 'd', value: '4' }, db.sqlite!),
      postgres: () => postgresGenerated.writeMetaKeyOnce.exec({ key: 'd', value: '4' }, db.pool!),
    });
    expect(await g()).toBe(1);
    expect(await g()).toBe(0); // write-once: the second write changes nothing
  });
});

describe('@returns: codegen', () => {
  let database: CreatedDatabase;
  beforeAll(async () => {
    database = await createDatabase(inject('pgUrl'), `codegen_returns_${process.pid}`, { replaceExisting: true });
  });
  afterAll(() => database.drop());

  const rewrite = (root: string, file: string, from: string | RegExp, to: string) => {
    const f = join(root, file);
    const text = readFileSync(f, 'utf8');
    expect(text).toMatch(from); // the edit must change the file
    writeFileSync(f, text.replace(from, to));
  };

  it(
    'exits non-zero on a missing or unknown @returns, and on dialects that declare differently',
    () => {
      const run = runCodegen(database.url, (root) => {
        rewrite(root, 'queries/sqlite/read_meta_key.sql', '/* @returns maybe-one */\n', '');
        rewrite(root, 'queries/sqlite/demo/demo_insert_session.sql', '/* @returns exec */', '/* @returns nothing */');
      });
      expect(run.status).not.toBe(0);
      expect(run.output).toContain('queries/sqlite/read_meta_key.sql: no @returns line');
      expect(run.output).toContain('queries/sqlite/demo/demo_insert_session.sql: @returns "nothing" is none of one, maybe-one, many, exec');
      const differ = runCodegen(database.url, (root) => rewrite(root, 'queries/postgres/read_meta_key.sql', '/* @returns maybe-one */', '/* @returns one */'));
      expect(differ.status).not.toBe(0);
      expect(differ.output).toMatch(/dialects disagree on @returns:\s+read_meta_key\.sql: @returns maybe-one \(queries\/sqlite\/read_meta_key\.sql\) vs one/);
    },
    2 * CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero on rows declared of a write, and exec declared of a SELECT, on either dialect',
    () => {
      const run = runCodegen(database.url, (root) => {
        for (const d of DIALECTS) {
          rewrite(root, `queries/${d}/delete_meta_key.sql`, '/* @returns exec */', '/* @returns one */');
          rewrite(root, `queries/${d}/next_backfill_sessions.sql`, '/* @returns many */', '/* @returns exec */');
        }
      });
      expect(run.status).not.toBe(0);
      for (const d of DIALECTS) {
        expect(run.output).toContain(`queries/${d}/delete_meta_key.sql (deleteMetaKey): @returns one, but the statement returns no rows`);
        expect(run.output).toContain(`queries/${d}/next_backfill_sessions.sql (nextBackfillSessions): @returns exec, but the statement returns rows`);
      }
    },
    CODEGEN_RUN_MS,
  );
});
