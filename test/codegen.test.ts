// Codegen fails loudly: an invalid query on either dialect, or dialects that disagree, make
// `npm run codegen` exit non-zero naming the query (pgtyped alone would exit 0), in the
// product's queries and the demo's (queries/<dialect>/demo/) alike. The generated SQLite code
// is typed from the schema: no `any`, nullability as declared, expression columns by their
// alias type hints (`AS "col!::bigint"`, SQLite only). The product's index exports only
// product statements; the demo's statements have an index of their own.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDatabase, type CreatedDatabase } from '../scripts/lib/postgres-database.js';
import { DIALECT_ONLY } from '../scripts/lib/query-files.js';
import { DIALECTS } from '../src/dialect.js';
import { runCodegen, type CodegenRun } from './helpers/codegen-run.js';

/** Each test runs the whole codegen (tsx, pgtyped, a PostgreSQL database): up to 31 s in a
 * loaded full run, so a 60 s limit was half used; the limit guards a hang, not speed. */
const CODEGEN_RUN_MS = 180_000;

let database: CreatedDatabase;

beforeAll(async () => {
  database = await createDatabase(inject('pgUrl'), `codegen_${process.pid}`, { replaceExisting: true });
});
afterAll(() => database.drop());

/** Runs codegen on a copy of schema/ and queries/ after `edit` changed it; `generated` reads
 * one module it wrote (relative to the copy's generated/), before the copy is removed. */
const codegenWith = (edit: (root: string) => void, generated?: string): CodegenRun => runCodegen(database.url, edit, generated);

const breakQuery = (root: string, dialect: string) =>
  writeFileSync(
    join(root, 'queries', dialect, 'read_meta_key.sql'),
    readFileSync(join(root, 'queries', dialect, 'read_meta_key.sql'), 'utf8').replace('m.value', 'm.no_such_column'),
  );

const DEMO_QUERY = join('demo', 'demo_insert_session.sql');
const breakDemoQuery = (root: string, dialect: string) => {
  const f = join(root, 'queries', dialect, DEMO_QUERY);
  const text = readFileSync(f, 'utf8');
  expect(text).toContain('task_id, state,'); // the edit below must change the statement
  writeFileSync(f, text.replace('task_id, state,', 'task_id, no_such_column,'));
};

/** The modules an index re-exports, by file base. */
const indexed = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from '\.\/(\w+)\.queries\.js'/g)].map((m) => m[1]);
const sqlFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, ''))
    .sort();

describe('codegen', () => {
  it(
    'regenerates cleanly from an unmodified copy (the control case)',
    () => {
      const run = codegenWith(() => {});
      expect(run.output).toContain('codegen: wrote');
      expect(run.status).toBe(0);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero naming the query when it is invalid on SQLite only',
    () => {
      const run = codegenWith((root) => breakQuery(root, 'sqlite'));
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/queries\/sqlite\/read_meta_key\.sql \(readMetaKey\)/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero naming the query when it is invalid on PostgreSQL only',
    () => {
      const run = codegenWith((root) => breakQuery(root, 'postgres'));
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/read_meta_key/);
      expect(run.output).toMatch(/ReadMetaKey|readMetaKey/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero when the dialects disagree on a parameter name',
    () => {
      const run = codegenWith((root) => {
        const f = join(root, 'queries', 'postgres', 'read_meta_key.sql');
        writeFileSync(f, readFileSync(f, 'utf8').replace(':key!', ':metaKey!'));
      });
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/dialects disagree[\s\S]*read_meta_key\.sql: parameters/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero naming file and line when a statement writes a fragment out instead of including it',
    () => {
      const run = codegenWith((root) => {
        const f = join(root, 'queries', 'sqlite', 'max_observed_at_since_capture.sql');
        const text = readFileSync(f, 'utf8');
        const utc9 = readFileSync(join(root, 'queries', 'sqlite', 'fragments', 'utc9.sql'), 'utf8').replace(/^[\s\S]*?\*\/\n/, '');
        expect(text).toContain('AND {{utc9(s.observed_at)}} >= :since!');
        writeFileSync(f, text.replace('AND {{utc9(s.observed_at)}} >= :since!', `AND ${utc9.replace(/\bx\b/g, 's.observed_at')} >= :since!`));
      });
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/queries\/sqlite\/max_observed_at_since_capture\.sql:\d+: utc9's text written out: write \{\{utc9\(s\.observed_at\)\}\}/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero naming the demo query when it is invalid on SQLite only',
    () => {
      const run = codegenWith((root) => breakDemoQuery(root, 'sqlite'));
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/queries\/sqlite\/demo\/demo_insert_session\.sql \(demoInsertSession\)/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero naming the demo query when it is invalid on PostgreSQL only',
    () => {
      const run = codegenWith((root) => breakDemoQuery(root, 'postgres'));
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/queries\/postgres\/demo\/demo_insert_session\.sql \(demoInsertSession\)/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero when a demo query exists in one dialect only, or outside its group',
    () => {
      const missing = codegenWith((root) => rmSync(join(root, 'queries', 'postgres', DEMO_QUERY)));
      expect(missing.status).not.toBe(0);
      expect(missing.output).toMatch(/dialects disagree[\s\S]*demo\/demo_insert_session\.sql exists only in queries\/sqlite/);
      // The same file moved out of demo/ in one dialect: same name, different group.
      const moved = codegenWith((root) =>
        renameSync(join(root, 'queries', 'postgres', DEMO_QUERY), join(root, 'queries', 'postgres', 'demo_insert_session.sql')),
      );
      expect(moved.status).not.toBe(0);
      expect(moved.output).toMatch(/demo\/demo_insert_session\.sql exists only in queries\/sqlite/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero on a query folder that is no group (pgtyped would compile it, no index would export it)',
    () => {
      const run = codegenWith((root) => {
        for (const d of DIALECTS) {
          mkdirSync(join(root, 'queries', d, 'extra'));
          renameSync(join(root, 'queries', d, DEMO_QUERY), join(root, 'queries', d, 'extra', 'demo_insert_session.sql'));
        }
      });
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(/queries\/sqlite\/extra: not a query group/);
    },
    CODEGEN_RUN_MS,
  );

  it(
    'exits non-zero when two groups use one query name',
    () => {
      const run = codegenWith((root) => {
        for (const d of DIALECTS) {
          const f = join(root, 'queries', d, DEMO_QUERY);
          writeFileSync(f, readFileSync(f, 'utf8').replace('@name demoInsertSession', '@name readActivationKeys'));
        }
      });
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(
        /query name readActivationKeys in both queries\/sqlite\/read_activation_keys\.sql and queries\/sqlite\/demo\/demo_insert_session\.sql/,
      );
    },
    CODEGEN_RUN_MS,
  );

  it("the product's index exports exactly the product statements; the demo's index exactly the demo's", () => {
    for (const d of DIALECTS) {
      const product = sqlFiles(join('queries', d));
      const demo = sqlFiles(join('queries', d, 'demo'));
      expect(demo.length, d).toBeGreaterThan(0);
      expect(
        product.filter((f) => f.startsWith('demo_')),
        d,
      ).toEqual([]);
      expect(indexed(join('generated', d, 'index.ts')).sort(), d).toEqual(product);
      expect(indexed(join('generated', d, 'demo', 'index.ts')).sort(), d).toEqual(demo);
    }
  });

  it('generates code without `any` on both dialects, SQLite with nullability from the schema', () => {
    // `any` in a type position (comments and embedded SQL may say "any" in prose).
    const anyType = /(:\s*any\b|\bas any\b|<any\b|\bany\[\]|\bany\s*[|>,)])/;
    expect('const readMetaKeyIR: any = {};').toMatch(anyType); // what pgtyped itself emits: the check can fire
    for (const d of DIALECTS) {
      const modules = readdirSync(join('generated', d), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
      expect(modules, d).toContain(join('demo', 'demo_insert_session.queries.ts'));
      for (const f of modules) expect(readFileSync(join('generated', d, f), 'utf8'), `${d}/${f}`).not.toMatch(anyType);
    }
    const list = readFileSync('generated/sqlite/list_subagent_contexts_by_session.queries.ts', 'utf8');
    expect(list).toMatch(/\n {2}task_id: string;\n/); // NOT NULL column
    expect(list).toMatch(/\n {2}turn_id: string \| null;\n/); // nullable column
    expect(list).toMatch(/\n {2}total_tokens: bigint \| null;\n/);
    expect(list).toMatch(/\n {2}observed_at: string;\n/); // expression with a "!::string" hint
    expect(list).toMatch(/\n {2}settled_at: string \| null;\n/); // expression with a "?::string" hint
    expect(list).toMatch(/\n {2}total_tokens: bigint \| null;\n/);
  });

  it('types an expression column by its alias type hint and strips the hint from the SQL', () => {
    const shortfall = readFileSync('generated/sqlite/count_shortfall_since_capture.queries.ts', 'utf8');
    expect(readFileSync('queries/sqlite/count_shortfall_since_capture.sql', 'utf8')).toContain('AS "shortfall!::bigint"');
    expect(shortfall).toMatch(/\n {2}shortfall: bigint;\n/);
    expect(shortfall).toContain('SELECT COUNT(*) AS \\"shortfall\\" FROM'); // the SQL sent to SQLite, hint stripped
    // On a copy: a hint on a plain column overrides its declared type, and `?` its nullability.
    const run = codegenWith(
      (root) => {
        const f = join(root, 'queries', 'sqlite', 'read_meta_key.sql');
        const text = readFileSync(f, 'utf8');
        expect(text).toContain('m.value'); // the edit below must change the statement
        writeFileSync(f, text.replace('m.value', 'm.value AS "value?::Buffer"'));
      },
      join('sqlite', 'read_meta_key.queries.ts'),
    );
    expect(run.status, run.output).toBe(0);
    expect(run.module).toMatch(/\n {2}value: Buffer \| null;\n/);
    expect(run.module).toContain('m.value AS \\"value\\"');
    expect(readFileSync('generated/sqlite/read_meta_key.queries.ts', 'utf8')).toMatch(/\n {2}value: string;\n/); // the control
  }, 60_000);

  it('exits non-zero on an unknown type hint, naming the query and the column', () => {
    const run = codegenWith((root) => {
      const f = join(root, 'queries', 'sqlite', 'count_shortfall_since_capture.sql');
      writeFileSync(f, readFileSync(f, 'utf8').replace('"shortfall!::bigint"', '"shortfall!::integer"'));
    });
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(
      /queries\/sqlite\/count_shortfall_since_capture\.sql \(countShortfallSinceCapture\): column "shortfall": unknown type hint "::integer"/,
    );
  }, 60_000);

  it('exits non-zero on a type hint in queries/postgres (pgtyped would rename the column)', () => {
    const run = codegenWith((root) => {
      const f = join(root, 'queries', 'postgres', 'count_shortfall_since_capture.sql');
      writeFileSync(f, readFileSync(f, 'utf8').replace('"shortfall!"', '"shortfall!::bigint"'));
    });
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(
      /queries\/postgres\/count_shortfall_since_capture\.sql \(countShortfallSinceCapture\): column "shortfall": type hints are SQLite-only/,
    );
  }, 60_000);

  it('exits non-zero on a one-colon type hint (pgtyped would read it as a parameter)', () => {
    const run = codegenWith((root) => {
      const f = join(root, 'queries', 'sqlite', 'count_shortfall_since_capture.sql');
      writeFileSync(f, readFileSync(f, 'utf8').replace('"shortfall!::bigint"', '"shortfall!:bigint"'));
    });
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(
      /count_shortfall_since_capture\.sql \(countShortfallSinceCapture\): column "shortfall!": write a type hint as "shortfall!::type"/,
    );
  }, 60_000);

  it('every generated function says beside it that its rows are raw, and the list statements name toSubagentContextRow', () => {
    for (const d of DIALECTS) {
      for (const f of sqlFiles(join('queries', d))) {
        const module = readFileSync(join('generated', d, `${f}.queries.ts`), 'utf8');
        const returnsRows = !/export type I\w+Result = void;/.test(module);
        expect(module.includes(' * Rows are raw, as '), `${d}/${f}`).toBe(returnsRows);
        expect(module.includes('`toSubagentContextRow(row)`'), `${d}/${f}`).toBe(f.startsWith('list_subagent_contexts_by_'));
      }
    }
  });

  it("SQLite modules export the same statement names as pgtyped's, I…Query included", () => {
    const postgresFiles = new Set(sqlFiles(join('queries', 'postgres')));
    const sqliteOnly = sqlFiles(join('queries', 'sqlite')).filter((f) => !postgresFiles.has(f));
    // A statement one dialect lacks is declared (DIALECT_ONLY), never an accident.
    expect(sqliteOnly.sort()).toEqual(
      Object.keys(DIALECT_ONLY)
        .filter((f) => DIALECT_ONLY[f].join() === 'sqlite')
        .sort(),
    );
    for (const f of sqlFiles(join('queries', 'sqlite')).filter((f) => postgresFiles.has(f))) {
      const names = (d: string) =>
        [...readFileSync(join('generated', d, `${f}.queries.ts`), 'utf8').matchAll(/^export (?:const|interface|type) (\w+)/gm)].map((m) => m[1]).sort();
      expect(names('sqlite'), f).toEqual(names('postgres'));
    }
  });
});
