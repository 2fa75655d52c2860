// Issue 16 item 10: the declared SQLite floor is true. Every schema script and every statement
// the package ships for SQLite (the product's, the demo's, the proxy's and the importer's) is applied or prepared on an
// engine of the declared minimum version (test/helpers/floor-sqlite.ts), so a statement that
// needs a newer engine — octet_length (3.43), unistr (3.50), json_pretty (3.46) … — fails here,
// naming the file, instead of failing a user's backfill on every boot after the version check
// let it through. SQLite resolves functions and syntax when it prepares, so preparing is enough;
// the PostgreSQL floor is exercised by `npm run test:pg15` on a real PostgreSQL 15.
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as demo from '../generated/sqlite/demo/index.js';
import * as product from '../generated/sqlite/index.js';
import * as proxy from '../generated/sqlite/proxy/index.js';
import * as importer from '../generated/sqlite/import/index.js';
import { backfillSchema, hostIndexSchema, hostSchema, legacySchema, packageSchema, upgradeSchema } from '../generated/sqlite/index.js';
import { createSqliteMigrationDatabase } from '../src/sqlite/migrations.js';
import { SqlitePreparedQuery } from '../src/sqlite/prepared-query.js';
import { openFloorDatabase, type FloorDatabase } from './helpers/floor-sqlite.js';

const root = join(import.meta.dirname, '..');

function sqlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    // fragments/ holds no statement: its text reaches the statements through codegen's includes.
    e.isDirectory() ? (e.name === 'fragments' ? [] : sqlFiles(join(dir, e.name))) : e.name.endsWith('.sql') ? [join(dir, e.name)] : [],
  );
}

const statements: { name: string; sql: string }[] = [
  ...Object.values(product),
  ...Object.values(demo),
  ...Object.values(proxy),
  ...Object.values(importer),
].flatMap((v: unknown) => (v instanceof SqlitePreparedQuery ? [{ name: v.name, sql: v.sql }] : []));

function declaredFloor(): { number: number; text: string } {
  const db = new Database(':memory:');
  try {
    return createSqliteMigrationDatabase(db).minimumVersion;
  } finally {
    db.close();
  }
}

function script(list: readonly { name: string; sql: string }[], name: string): string {
  const found = list.find((s) => s.name === name);
  if (!found) throw new Error(`no schema script ${name}`);
  return found.sql;
}

describe('SQLite floor: everything the package runs works on the declared minimum engine', () => {
  let db: FloorDatabase;
  beforeAll(async () => {
    db = await openFloorDatabase();
    db.exec('PRAGMA foreign_keys = ON');
  });
  afterAll(() => db.close());

  it('the test engine is the declared floor (same major.minor, not older)', () => {
    const floor = declaredFloor();
    const [[text]] = db.exec('SELECT sqlite_version()')[0].values as [[string]];
    const [x, y, z] = text.split('.').map(Number);
    expect(x * 1_000_000 + y * 1_000 + z).toBeGreaterThanOrEqual(floor.number);
    expect(`${x}.${y}`).toBe(floor.text.split('.').slice(0, 2).join('.'));
  });

  it('every schema script applies: the host tables, a fresh store, the AC-33 rebuild of a pre-amendment one, the optional host index, the backfill staging table', () => {
    for (const s of hostSchema) db.exec(s.sql);
    for (const s of legacySchema) db.exec(s.sql);
    db.exec('PRAGMA foreign_keys = OFF');
    db.exec('BEGIN');
    db.exec(script(upgradeSchema, 'set_aside_pre_amendment_table'));
    db.exec(script(packageSchema, 'task_session_subagents'));
    db.exec(script(upgradeSchema, 'copy_pre_amendment_rows'));
    db.exec(script(packageSchema, 'task_session_subagents_indexes'));
    db.exec('COMMIT');
    db.exec('PRAGMA foreign_keys = ON');
    // Every script is idempotent, so the fresh-database path runs over the rebuilt one.
    for (const s of packageSchema) db.exec(s.sql);
    // The optional host index (store.ensureHostIndex()), twice: it is idempotent too.
    for (const s of [...hostIndexSchema, ...hostIndexSchema]) db.exec(s.sql);
    // The backfill's staging table (created at its start, IF NOT EXISTS: a resumed run creates it again).
    for (const s of [...backfillSchema, ...backfillSchema]) db.exec(s.sql);
    const upgradeNames = new Set(upgradeSchema.map((s) => s.name));
    expect(upgradeNames).toEqual(new Set(['set_aside_pre_amendment_table', 'copy_pre_amendment_rows']));
  });

  it('every statement under queries/sqlite/ is checked here (one generated statement per file)', () => {
    const files = sqlFiles(join(root, 'queries', 'sqlite')).map((f) => relative(root, f));
    expect(statements.length).toBe(files.length);
  });

  it.each(statements.map((s) => [s.name, s] as const))('%s prepares', (_name, statement) => {
    const stmt = db.prepare(statement.sql);
    stmt.free();
  });

  it('the engine refuses what is newer than the floor, so a statement needing it fails above', () => {
    // octet_length arrived in 3.43.0; three statements used it while the floor said 3.38.0.
    expect(() => db.prepare("SELECT octet_length('x')")).toThrow(/no such function: octet_length/);
    expect(() => db.prepare("SELECT unistr('x')")).toThrow(/no such function: unistr/);
  });
});
