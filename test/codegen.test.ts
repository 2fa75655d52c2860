// Codegen fails loudly: an invalid query on either dialect, or dialects that disagree, make
// `npm run codegen` exit non-zero naming the query (pgtyped alone would exit 0). And the
// generated SQLite code is typed from the schema: no `any`, nullability as declared.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

let work: string;
let pgUrl: string;
const dbName = `codegen_${process.pid}`;

beforeAll(async () => {
  const admin = new pg.Client(inject('pgUrl'));
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const u = new URL(inject('pgUrl'));
  u.pathname = `/${dbName}`;
  pgUrl = u.toString();
});
afterAll(async () => {
  const admin = new pg.Client(inject('pgUrl'));
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

/** Runs codegen on a copy of schema/ and queries/ after `edit` changed it. */
function codegenWith(edit: (root: string) => void): { status: number | null; output: string } {
  work = mkdtempSync(join(tmpdir(), 'subagent-context-codegen-test-'));
  try {
    for (const dir of ['schema', 'queries']) cpSync(dir, join(work, dir), { recursive: true });
    edit(work);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/codegen.ts'], {
      encoding: 'utf8',
      env: { ...process.env, SUBAGENT_CONTEXT_CODEGEN_ROOT: work, SUBAGENT_CONTEXT_CODEGEN_PG_URL: pgUrl },
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const breakQuery = (root: string, dialect: string) =>
  writeFileSync(
    join(root, 'queries', dialect, 'read_meta_key.sql'),
    readFileSync(join(root, 'queries', dialect, 'read_meta_key.sql'), 'utf8').replace('m.value', 'm.no_such_column'),
  );

describe('codegen', () => {
  it('regenerates cleanly from an unmodified copy (the control case)', () => {
    const run = codegenWith(() => {});
    expect(run.output).toContain('codegen: wrote');
    expect(run.status).toBe(0);
  }, 60_000);

  it('exits non-zero naming the query when it is invalid on SQLite only', () => {
    const run = codegenWith((root) => breakQuery(root, 'sqlite'));
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/queries\/sqlite\/read_meta_key\.sql \(readMetaKey\)/);
  }, 60_000);

  it('exits non-zero naming the query when it is invalid on PostgreSQL only', () => {
    const run = codegenWith((root) => breakQuery(root, 'postgres'));
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/read_meta_key/);
    expect(run.output).toMatch(/ReadMetaKey|readMetaKey/);
  }, 60_000);

  it('exits non-zero when the dialects disagree on a parameter name', () => {
    const run = codegenWith((root) => {
      const f = join(root, 'queries', 'postgres', 'read_meta_key.sql');
      writeFileSync(f, readFileSync(f, 'utf8').replace(':key!', ':metaKey!'));
    });
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/dialects disagree[\s\S]*read_meta_key\.sql: parameters/);
  }, 60_000);

  it('generates SQLite code without `any`, with nullability from the schema', () => {
    // `any` in a type position (comments and embedded SQL may say "any" in prose).
    const anyType = /(:\s*any\b|\bas any\b|<any\b|\bany\[\]|\bany\s*[|>,)])/;
    expect(readFileSync('generated/postgres/read_meta_key.queries.ts', 'utf8')).toMatch(anyType); // pgtyped's does: the check can fire
    for (const f of readdirSync('generated/sqlite')) expect(readFileSync(join('generated/sqlite', f), 'utf8'), f).not.toMatch(anyType);
    const list = readFileSync('generated/sqlite/list_subagent_contexts_by_session.queries.ts', 'utf8');
    expect(list).toMatch(/\n  task_id: string;\n/); // NOT NULL column
    expect(list).toMatch(/\n  turn_id: string \| null;\n/); // nullable column
    expect(list).toMatch(/\n  total_tokens: bigint \| null;\n/);
    expect(list).toMatch(/\n  observed_at: SqliteValue;\n/); // expression with a "!" hint
    expect(list).toMatch(/\n  settled_at: SqliteValue \| null;\n/); // expression with a "?" hint
  });
});
