// The shape is SQL-first: src/ sequences generated functions and owns transactions, and
// holds no SQL beyond transaction control and pragmas. This test is the grep that says so.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECT_ONLY, type Dialect } from '../scripts/lib/query-files.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// A string literal that starts like a statement other than transaction control: a keyword
// followed by whitespace, as every statement's is. A keyword alone ('delete', an ACP tool kind)
// or followed by a hyphen (a CLI option's name, 'create-host-tables') is not SQL.
const SQL_LITERAL = /(['"`])\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|WITH|SET|TRUNCATE|DO)\s[^'"`]*\1?/i;
const ALLOWED = /^(['"`])\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA)\b/i;

describe('layout', () => {
  it('src/ contains no SQL statements beyond transaction control and pragmas', () => {
    const offenders: string[] = [];
    for (const file of files('src')) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (line.trim().startsWith('//') || line.trim().startsWith('*')) return;
          const m = SQL_LITERAL.exec(line);
          if (m && !ALLOWED.test(m[0])) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('the SQL statement detector recognises SQL (so the check above can fail)', () => {
    expect(SQL_LITERAL.test(`db.prepare('SELECT 1')`)).toBe(true);
    expect(SQL_LITERAL.test(`db.exec('CREATE TABLE t (x)')`)).toBe(true);
    expect(SQL_LITERAL.test(`{ 'create-host-tables': { type: 'boolean' } }`)).toBe(false);
    expect(SQL_LITERAL.test(`new Set(['read', 'delete', 'move'])`)).toBe(false);
    expect(SQL_LITERAL.test('db.exec(`DELETE\n  FROM t`)')).toBe(true);
    expect(SQL_LITERAL.test('pool.query(`INSERT INTO t VALUES (1)`)')).toBe(true);
    expect(ALLOWED.test(`'BEGIN IMMEDIATE'`)).toBe(true);
  });

  // Issue #19: small files with one job. Every source file in src/, test/ and scripts/ (the
  // generated code lives in generated/, outside them); test/fixtures/ holds recorded data, not code.
  const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? sources(p) : SOURCE.test(p) ? [p] : [];
    });
  const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;

  it('no source file in src/, test/ or scripts/ is over 300 lines', () => {
    const checked = ['src', 'test', 'scripts'].flatMap(sources).filter((file) => !file.startsWith(join('test', 'fixtures') + '/'));
    expect(checked).toContain(join('test', 'layout.test.ts'));
    expect(checked).toContain(join('scripts', 'bench', 'lib', 'synthetic-store.ts'));
    const long = checked.map((file) => ({ file, lines: linesOf(file) })).filter((f) => f.lines > 300);
    expect(long).toEqual([]);
  });

  it("every query exists for both dialects, bar the ones declared one dialect's alone", () => {
    const sqlite = readdirSync('queries/sqlite').sort();
    const postgres = readdirSync('queries/postgres').sort();
    const only = (d: Dialect) => Object.entries(DIALECT_ONLY).flatMap(([f, dialects]) => (dialects.includes(d) ? [`${f}.sql`] : []));
    expect([...sqlite, ...only('postgres')].sort()).toEqual([...postgres, ...only('sqlite')].sort());
    expect(only('postgres')).toContain('set_local_lock_timeout.sql');
    expect(sqlite.length).toBeGreaterThan(0);
  });
});
